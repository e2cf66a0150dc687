/* Optional C accelerator of goap.planning._compile: grounding of "plain" tasks.
 *
 * compile_plain(initial, goal, actions, op_class) does what goap.planning._compile._compile does with
 * prune=True, for the common case it can decide alone: every fact value, precondition and goal
 * condition is a plain str/int/float/bool/None (equality), every cost is a number and no effect is
 * add(). It returns None for anything else (a non-plain condition, a numeric fact, a cost function,
 * duplicate action names, a non-str key, a mapping argument that is not a mapping, ...) and the
 * pure-Python compiler then runs, raising the same errors as before. Any other exception (one
 * raised by user code it runs, MemoryError, an internal RuntimeError) is the caller's. Its result
 * is identical to the Python one: the same variables, the same operators (same fields, in the same
 * order), goal sets, pruning counts and flags.
 *
 * Returns (variables, ops, goal_sets, pruned, dropped, impossible, relaxed_reachable, buckets)
 * with variables = [(name, domain, shift, mask, base)], ops = [op_class instances], goal_sets =
 * [(variable index, frozenset of value indices)], dropped = {key: initial value}, buckets = the
 * successor-index fact of each operator (-1: none), as goap.planning._task.Task would choose it.
 *
 * Every input is checked; unexpected input gives None or a Python exception, never a crash. Python
 * code may run while the inputs are read (a user Mapping's items(), an action's name's __hash__, a
 * cost's __float__, a finalizer run by the garbage collector, another thread): so every mapping is
 * first copied into a new dict private to this call (never the caller's dict, which that code could
 * mutate after it was checked) and only then checked, and the private containers are untracked by
 * the garbage collector so that no Python code can reach them (gc.get_objects/get_referrers). The
 * C arrays are private to one call, so re-entrancy is harmless.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* growable int array */
typedef struct {
    Py_ssize_t *v;
    Py_ssize_t n, cap;
} IVec;

static int ivec_push(IVec *a, Py_ssize_t x) {
    if (a->n == a->cap) {
        Py_ssize_t cap = a->cap ? a->cap * 2 : 64;
        Py_ssize_t *nv = (Py_ssize_t *)realloc(a->v, (size_t)cap * sizeof(Py_ssize_t));
        if (nv == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        a->v = nv;
        a->cap = cap;
    }
    a->v[a->n++] = x;
    return 0;
}

/* str/int/float/bool/None of the exact type: equality is dict-lookup equality (NaN excluded: a
 * NaN is found in a dict by identity, yet never equals itself) */
static int is_plain(PyObject *o) {
    return o == Py_None || PyUnicode_CheckExact(o) || PyLong_CheckExact(o) || PyBool_Check(o) ||
           (PyFloat_CheckExact(o) && !isnan(PyFloat_AS_DOUBLE(o)));
}

#define UNSUPPORTED 1 /* return None: the Python compiler handles it */

static PyObject *S_copy, *S_name, *S_cost, *S_pre, *S_eff; /* interned names, set at import */

/* Hide a container created by this call from the garbage collector's lists, so that no Python code
 * (a finalizer, a __hash__ calling gc.get_referrers) can get hold of it and mutate it. It holds no
 * reference cycle: nothing but this call refers to it. */
static PyObject *private_obj(PyObject *o) {
    if (o != NULL && PyObject_IS_GC(o)) PyObject_GC_UnTrack(o);
    return o;
}

/* A mapping as a NEW exact dict private to this call, in *out: a copy of a dict, a mappingproxy's
 * copy() (copied again unless it is a fresh dict no one else holds: a user copy() may return a dict
 * it keeps and mutates later), else dict(mapping) through the mapping protocol (keys(), then
 * m[key]). Never the caller's object: Python code that runs later in this call may mutate the
 * caller's dict after its items were checked. Returns 0, UNSUPPORTED (not a mapping: no keys(); the
 * Python compiler decides what that is) or -1 with an exception set. */
static int dict_of(PyObject *m, PyObject **out) {
    *out = NULL;
    if (PyDict_CheckExact(m)) {
        *out = private_obj(PyDict_Copy(m));
        return *out == NULL ? -1 : 0;
    }
    if (Py_TYPE(m) == &PyDictProxy_Type) {
        PyObject *d = PyObject_CallMethodNoArgs(m, S_copy);
        if (d == NULL) {
            /* a proxy over a Mapping without copy(): read it through keys() below */
            if (!PyErr_ExceptionMatches(PyExc_AttributeError)) return -1;
            PyErr_Clear();
        } else if (PyDict_CheckExact(d)) {
            if (Py_REFCNT(d) == 1) {
                *out = private_obj(d);
                return 0;
            }
            *out = private_obj(PyDict_Copy(d));
            Py_DECREF(d);
            return *out == NULL ? -1 : 0;
        } else {
            Py_DECREF(d);
        }
    }
    PyObject *d = PyDict_New();
    if (d == NULL) return -1;
    if (PyDict_Check(m)) { /* a dict subclass: its items, as before */
        if (PyDict_Merge(d, m, 1) < 0) {
            Py_DECREF(d);
            return -1;
        }
        *out = private_obj(d);
        return 0;
    }
    PyObject *keys = PyMapping_Keys(m);
    if (keys == NULL) {
        Py_DECREF(d);
        if (!PyErr_ExceptionMatches(PyExc_AttributeError)) return -1;
        PyErr_Clear(); /* no keys(): not a mapping */
        return UNSUPPORTED;
    }
    PyObject *it = PyObject_GetIter(keys);
    Py_DECREF(keys);
    if (it == NULL) {
        Py_DECREF(d);
        return -1;
    }
    PyObject *k;
    while ((k = PyIter_Next(it)) != NULL) {
        PyObject *v = PyObject_GetItem(m, k);
        int r = v == NULL ? -1 : PyDict_SetItem(d, k, v);
        Py_DECREF(k);
        Py_XDECREF(v);
        if (r < 0) break;
    }
    Py_DECREF(it);
    if (PyErr_Occurred()) {
        Py_DECREF(d);
        return -1;
    }
    *out = private_obj(d);
    return 0;
}

/* Set nbits bits at shift to value in a little-endian array of 64-bit words. */
static void set_bits(uint64_t *w, Py_ssize_t shift, uint64_t value, int nbits) {
    for (int b = 0; b < nbits; b++) {
        if ((value >> b) & 1u) {
            Py_ssize_t pos = shift + b;
            w[pos / 64] |= (uint64_t)1 << (pos % 64);
        }
    }
}

static PyObject *long_of_words(const uint64_t *w, Py_ssize_t nwords, unsigned char *buf) {
    if (nwords == 1) return PyLong_FromUnsignedLongLong(w[0]);
    for (Py_ssize_t i = 0; i < nwords; i++)
        for (int j = 0; j < 8; j++) buf[i * 8 + j] = (unsigned char)(w[i] >> (8 * j));
    return _PyLong_FromByteArray(buf, (size_t)(nwords * 8), 1, 0);
}

static const char *FIELDS[14] = {"index", "action", "pre", "eff", "pre_mask", "pre_val", "keep",
                                 "eff_val", "cost", "cost_fn", "residual", "residual_facts",
                                 "num_pre", "num_eff"};

typedef struct {
    PyObject *sources; /* list: [initial dict, goal items, action tuple, per-action lists] */
    PyObject *keys;    /* sorted list of finite keys */
    PyObject *keyidx;  /* key -> index */
    PyObject **dom;    /* per key: value -> index dict */
    PyObject **domv;   /* per key: list of values */
    Py_ssize_t nk, nacts;
    Py_ssize_t *base;
    /* per action: its items */
    PyObject **pre_items, **eff_items;
    /* raws */
    IVec raw_act, raw_pre_start, raw_pre, raw_eff_start, raw_eff; /* pre/eff: key*?:(k, x) pairs */
    /* buffers */
    Py_ssize_t *a1, *a2, *a3, *a4;
    unsigned char *b1, *b2, *b3;
    uint64_t *w;
    unsigned char *bytebuf;
} G;

/* Release the n references of the calloc'd array a (NULL entries allowed), then a itself (NULL: nothing). */
static void free_refs(PyObject **a, Py_ssize_t n) {
    if (!a) return;
    for (Py_ssize_t i = 0; i < n; i++) Py_XDECREF(a[i]);
    free(a);
}

static void g_free(G *g) {
    Py_XDECREF(g->sources);
    Py_XDECREF(g->keys);
    Py_XDECREF(g->keyidx);
    free_refs(g->dom, g->nk);
    free_refs(g->domv, g->nk);
    free_refs(g->pre_items, g->nacts);
    free_refs(g->eff_items, g->nacts);
    free(g->base);
    free(g->raw_act.v);
    free(g->raw_pre_start.v);
    free(g->raw_pre.v);
    free(g->raw_eff_start.v);
    free(g->raw_eff.v);
    free(g->a1);
    free(g->a2);
    free(g->a3);
    free(g->a4);
    free(g->b1);
    free(g->b2);
    free(g->b3);
    free(g->w);
    free(g->bytebuf);
}

/* index of key k (a str), or -1 with no error when absent */
static Py_ssize_t key_index(G *g, PyObject *k) {
    PyObject *i = PyDict_GetItemWithError(g->keyidx, k);
    if (i == NULL) return PyErr_Occurred() ? -2 : -1;
    return PyLong_AsSsize_t(i);
}

/* value index of v in key ki's domain; -1 when absent, -2 on error */
static Py_ssize_t value_index(G *g, Py_ssize_t ki, PyObject *v) {
    PyObject *i = PyDict_GetItemWithError(g->dom[ki], v);
    if (i == NULL) return PyErr_Occurred() ? -2 : -1;
    return PyLong_AsSsize_t(i);
}

/* Sorts n (key, value) pairs by key (keys are distinct): one action's items are few, so an
 * insertion sort beats qsort's call per comparison. */
static void sort_pairs(Py_ssize_t *a, Py_ssize_t n) {
    for (Py_ssize_t i = 1; i < n; i++) {
        Py_ssize_t k = a[2 * i], v = a[2 * i + 1], j = i;
        while (j > 0 && a[2 * (j - 1)] > k) {
            a[2 * j] = a[2 * (j - 1)];
            a[2 * j + 1] = a[2 * (j - 1) + 1];
            j--;
        }
        a[2 * j] = k;
        a[2 * j + 1] = v;
    }
}

static int cmp_pair(const void *x, const void *y) {
    const Py_ssize_t *a = (const Py_ssize_t *)x, *b = (const Py_ssize_t *)y;
    return (a[0] > b[0]) - (a[0] < b[0]);
}

/* The grounding itself; returns 0 (result in *out), UNSUPPORTED, or -1 with an exception set. */
static int compile_plain(G *g, PyObject *initial_in, PyObject *goal_in, PyObject *actions_in,
                         PyObject *op_class, PyObject **out) {
    PyObject *initial = NULL, *goal_items = NULL, *acts = NULL, *k, *v;
    Py_ssize_t pos;
    int rc = -1;
    g->sources = private_obj(PyList_New(0));
    if (g->sources == NULL) return -1;
    /* ---- copy the inputs */
    if ((rc = dict_of(initial_in, &initial)) != 0) goto done;
    rc = -1;
    if (PyList_Append(g->sources, initial) < 0) goto done;
    if ((rc = dict_of(goal_in, &goal_items)) != 0) goto done;
    rc = -1;
    if (PyList_Append(g->sources, goal_items) < 0) goto done;
    acts = PySequence_Tuple(actions_in);
    if (acts == NULL || PyList_Append(g->sources, acts) < 0) goto done;
    Py_ssize_t na = g->nacts = PyTuple_GET_SIZE(acts);
    g->pre_items = (PyObject **)calloc((size_t)na + 1, sizeof(PyObject *));
    g->eff_items = (PyObject **)calloc((size_t)na + 1, sizeof(PyObject *));
    if (g->pre_items == NULL || g->eff_items == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    PyObject *keyset = private_obj(PySet_New(NULL));
    if (keyset == NULL || PyList_Append(g->sources, keyset) < 0) {
        Py_XDECREF(keyset);
        goto done;
    }
    Py_DECREF(keyset); /* owned by sources */
    PyObject *names = private_obj(PySet_New(NULL));
    if (names == NULL || PyList_Append(g->sources, names) < 0) {
        Py_XDECREF(names);
        goto done;
    }
    Py_DECREF(names);
    /* filled by appending: a list with NULL slots must never be visible to Python code */
    PyObject *costs = private_obj(PyList_New(0));
    if (costs == NULL || PyList_Append(g->sources, costs) < 0) {
        Py_XDECREF(costs);
        goto done;
    }
    Py_DECREF(costs);
    pos = 0;
    while (PyDict_Next(initial, &pos, &k, &v)) {
        if (!PyUnicode_CheckExact(k) || !is_plain(v)) {
            rc = UNSUPPORTED;
            goto done;
        }
        if (PySet_Add(keyset, k) < 0) goto done;
    }
    pos = 0;
    while (PyDict_Next(goal_items, &pos, &k, &v)) {
        if (!PyUnicode_CheckExact(k) || !is_plain(v)) {
            rc = UNSUPPORTED;
            goto done;
        }
        if (PySet_Add(keyset, k) < 0) goto done;
    }
    for (Py_ssize_t a = 0; a < na; a++) {
        PyObject *act = PyTuple_GET_ITEM(acts, a);
        PyObject *name = PyObject_GetAttr(act, S_name);
        if (name == NULL) goto done;
        int dup = PySet_Contains(names, name);
        if (dup == 0) dup = PySet_Add(names, name) < 0 ? -1 : 0;
        Py_DECREF(name);
        if (dup < 0) goto done;
        if (dup) {
            rc = UNSUPPORTED; /* the Python compiler raises the ModelError */
            goto done;
        }
        PyObject *cost = PyObject_GetAttr(act, S_cost);
        if (cost == NULL) goto done;
        if (PyBool_Check(cost) || !(PyLong_Check(cost) || PyFloat_Check(cost))) {
            Py_DECREF(cost);
            rc = UNSUPPORTED;
            goto done;
        }
        PyObject *fc = PyNumber_Float(cost);
        Py_DECREF(cost);
        if (fc == NULL) goto done;
        int r = PyList_Append(costs, fc);
        Py_DECREF(fc);
        if (r < 0) goto done;
        for (int which = 0; which < 2; which++) {
            PyObject *m = PyObject_GetAttr(act, which ? S_eff : S_pre);
            if (m == NULL) goto done;
            PyObject *items;
            rc = dict_of(m, &items);
            Py_DECREF(m);
            if (rc != 0) goto done;
            rc = -1;
            (which ? g->eff_items : g->pre_items)[a] = items;
            pos = 0;
            while (PyDict_Next(items, &pos, &k, &v)) {
                /* an effect that is not plain is add(): a numeric fact */
                if (!PyUnicode_CheckExact(k) || !is_plain(v)) {
                    rc = UNSUPPORTED;
                    goto done;
                }
                if (PySet_Add(keyset, k) < 0) goto done;
            }
        }
    }
    /* ---- finite keys, sorted; domains: the initial value, then effect values in action order */
    g->keys = private_obj(PySequence_List(keyset));
    if (g->keys == NULL || PyList_Sort(g->keys) < 0) goto done;
    Py_ssize_t nk = g->nk = PyList_GET_SIZE(g->keys);
    g->keyidx = PyDict_New();
    g->dom = (PyObject **)calloc((size_t)nk + 1, sizeof(PyObject *));
    g->domv = (PyObject **)calloc((size_t)nk + 1, sizeof(PyObject *));
    g->base = (Py_ssize_t *)calloc((size_t)nk + 1, sizeof(Py_ssize_t));
    if (g->keyidx == NULL) goto done;
    if (g->dom == NULL || g->domv == NULL || g->base == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < nk; i++) {
        PyObject *k = PyList_GET_ITEM(g->keys, i);
        PyObject *idx = PyLong_FromSsize_t(i);
        if (idx == NULL) goto done;
        int r = PyDict_SetItem(g->keyidx, k, idx);
        Py_DECREF(idx);
        if (r < 0) goto done;
        PyObject *v = PyDict_GetItemWithError(initial, k);
        if (v == NULL) {
            if (PyErr_Occurred()) goto done;
            v = Py_None;
        }
        g->dom[i] = PyDict_New();
        g->domv[i] = private_obj(PyList_New(0));
        if (g->dom[i] == NULL || g->domv[i] == NULL) goto done;
        PyObject *zero = PyLong_FromLong(0);
        if (zero == NULL) goto done;
        r = PyDict_SetItem(g->dom[i], v, zero);
        Py_DECREF(zero);
        if (r < 0 || PyList_Append(g->domv[i], v) < 0) goto done;
    }
    for (Py_ssize_t a = 0; a < na; a++) {
        PyObject *items = g->eff_items[a], *e;
        pos = 0;
        while (PyDict_Next(items, &pos, &k, &e)) {
            Py_ssize_t ki = key_index(g, k);
            if (ki < 0) {
                if (ki == -1) PyErr_SetString(PyExc_RuntimeError, "effect key vanished");
                goto done;
            }
            int has = PyDict_Contains(g->dom[ki], e);
            if (has < 0) goto done;
            if (!has) {
                PyObject *idx = PyLong_FromSsize_t(PyList_GET_SIZE(g->domv[ki]));
                if (idx == NULL) goto done;
                int r = PyDict_SetItem(g->dom[ki], e, idx);
                Py_DECREF(idx);
                if (r < 0 || PyList_Append(g->domv[ki], e) < 0) goto done;
            }
        }
    }
    Py_ssize_t nf = 0;
    for (Py_ssize_t i = 0; i < nk; i++) {
        g->base[i] = nf;
        nf += PyList_GET_SIZE(g->domv[i]);
    }
    /* ---- ground every action: equality preconditions and the effects that change something */
    Py_ssize_t maxitems = 1;
    for (Py_ssize_t a = 0; a < na; a++) {
        Py_ssize_t s = PyDict_GET_SIZE(g->pre_items[a]) + PyDict_GET_SIZE(g->eff_items[a]);
        if (s > maxitems) maxitems = s;
    }
    Py_ssize_t *pk = (Py_ssize_t *)malloc((size_t)maxitems * 2 * sizeof(Py_ssize_t));
    if (pk == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    g->a4 = pk;
    for (Py_ssize_t a = 0; a < na; a++) {
        PyObject *items = g->pre_items[a];
        Py_ssize_t npre = 0;
        int dead = 0;
        pos = 0;
        while (PyDict_Next(items, &pos, &k, &v)) {
            Py_ssize_t ki = key_index(g, k);
            if (ki < 0) {
                if (ki == -1) PyErr_SetString(PyExc_RuntimeError, "precondition key vanished");
                goto done;
            }
            Py_ssize_t x = value_index(g, ki, v);
            if (x == -2) goto done;
            if (x == -1) { /* a plain value outside the domain: never holds */
                dead = 1;
                break;
            }
            if (PyList_GET_SIZE(g->domv[ki]) > 1) {
                if (npre >= maxitems) { /* cannot happen: the dict is private to this call */
                    PyErr_SetString(PyExc_RuntimeError, "preconditions changed during compile");
                    goto done;
                }
                pk[2 * npre] = ki;
                pk[2 * npre + 1] = x;
                npre++;
            }
        }
        if (dead) continue;
        Py_ssize_t raw_pre0 = g->raw_pre.n, raw_eff0 = g->raw_eff.n;
        items = g->eff_items[a];
        pos = 0;
        while (PyDict_Next(items, &pos, &k, &v)) {
            Py_ssize_t ki = key_index(g, k);
            if (ki < 0) {
                if (ki == -1) PyErr_SetString(PyExc_RuntimeError, "effect key vanished");
                goto done;
            }
            Py_ssize_t x = value_index(g, ki, v);
            if (x < 0) {
                if (x == -1) PyErr_SetString(PyExc_RuntimeError, "effect value vanished");
                goto done;
            }
            int same = 0;
            for (Py_ssize_t j = 0; j < npre; j++)
                if (pk[2 * j] == ki) {
                    same = pk[2 * j + 1] == x;
                    break;
                }
            if (!same && (ivec_push(&g->raw_eff, ki) < 0 || ivec_push(&g->raw_eff, x) < 0)) goto done;
        }
        if (g->raw_eff.n == raw_eff0) continue; /* a self-loop: it changes nothing */
        for (Py_ssize_t j = 0; j < 2 * npre; j++)
            if (ivec_push(&g->raw_pre, pk[j]) < 0) goto done;
        if (ivec_push(&g->raw_act, a) < 0 || ivec_push(&g->raw_pre_start, raw_pre0) < 0 ||
            ivec_push(&g->raw_eff_start, raw_eff0) < 0)
            goto done;
    }
    Py_ssize_t nr = g->raw_act.n;
    if (ivec_push(&g->raw_pre_start, g->raw_pre.n) < 0 || ivec_push(&g->raw_eff_start, g->raw_eff.n) < 0)
        goto done;
    const Py_ssize_t *ps = g->raw_pre_start.v, *pv = g->raw_pre.v, *es = g->raw_eff_start.v,
                     *ev = g->raw_eff.v;
    /* ---- goal: the allowed value (or none) of each goal key, in goal order */
    Py_ssize_t ng = PyDict_GET_SIZE(goal_items);
    Py_ssize_t *gk = (Py_ssize_t *)malloc((size_t)(ng + 1) * 2 * sizeof(Py_ssize_t));
    if (gk == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    g->a3 = gk;
    pos = 0;
    Py_ssize_t ngot = 0;
    for (Py_ssize_t i = 0; i < ng && PyDict_Next(goal_items, &pos, &k, &v); i++, ngot++) {
        Py_ssize_t ki = key_index(g, k);
        if (ki < 0) {
            if (ki == -1) PyErr_SetString(PyExc_RuntimeError, "goal key vanished");
            goto done;
        }
        Py_ssize_t x = value_index(g, ki, v);
        if (x == -2) goto done;
        gk[2 * i] = ki;
        gk[2 * i + 1] = x; /* -1: no value satisfies it */
    }
    if (ngot != ng || PyDict_GET_SIZE(goal_items) != ng) { /* cannot happen: the dict is private */
        PyErr_SetString(PyExc_RuntimeError, "goal changed during compile");
        goto done;
    }
    /* ---- forward relaxed reachability: fact -> operators waiting for it (CSR) */
    Py_ssize_t *cnt = (Py_ssize_t *)calloc((size_t)nf + 2, sizeof(Py_ssize_t));
    Py_ssize_t *lst = (Py_ssize_t *)malloc(((size_t)g->raw_pre.n / 2 + (size_t)g->raw_eff.n / 2 + 1) *
                                           sizeof(Py_ssize_t));
    Py_ssize_t *waiting = (Py_ssize_t *)malloc(((size_t)nr + 1) * sizeof(Py_ssize_t));
    g->b1 = (unsigned char *)calloc((size_t)nf + 1, 1); /* reached / relevant fact */
    g->b2 = (unsigned char *)calloc((size_t)nr + 1, 1); /* alive operator */
    g->b3 = (unsigned char *)calloc((size_t)nr + 1, 1); /* relevant operator */
    g->a1 = cnt;
    g->a2 = lst;
    Py_ssize_t *queue = NULL;
    if (waiting == NULL || cnt == NULL || lst == NULL || g->b1 == NULL || g->b2 == NULL || g->b3 == NULL) {
        free(waiting);
        PyErr_NoMemory();
        goto done;
    }
    queue = (Py_ssize_t *)malloc(((size_t)nf + (size_t)nr + 1) * sizeof(Py_ssize_t));
    if (queue == NULL) {
        free(waiting);
        PyErr_NoMemory();
        goto done;
    }
    unsigned char *reached = g->b1, *alive = g->b2, *relevant = g->b3;
    for (Py_ssize_t r = 0; r < nr; r++)
        for (Py_ssize_t j = ps[r]; j < ps[r + 1]; j += 2) cnt[g->base[pv[j]] + pv[j + 1] + 1]++;
    for (Py_ssize_t f = 0; f < nf; f++) cnt[f + 1] += cnt[f];
    for (Py_ssize_t r = 0; r < nr; r++) {
        waiting[r] = (ps[r + 1] - ps[r]) / 2;
        for (Py_ssize_t j = ps[r]; j < ps[r + 1]; j += 2) lst[cnt[g->base[pv[j]] + pv[j + 1]]++] = r;
    }
    for (Py_ssize_t f = nf; f > 0; f--) cnt[f] = cnt[f - 1]; /* back to start offsets */
    cnt[0] = 0;
    Py_ssize_t qn = 0;
    for (Py_ssize_t i = 0; i < nk; i++) {
        reached[g->base[i]] = 1;
        queue[qn++] = g->base[i];
    }
    for (Py_ssize_t r = 0; r < nr; r++)
        if (!waiting[r]) queue[qn++] = nf + r;
    while (qn) {
        Py_ssize_t item = queue[--qn];
        if (item >= nf) { /* an operator fires */
            Py_ssize_t r = item - nf;
            alive[r] = 1;
            for (Py_ssize_t j = es[r]; j < es[r + 1]; j += 2) {
                Py_ssize_t f = g->base[ev[j]] + ev[j + 1];
                if (!reached[f]) {
                    reached[f] = 1;
                    queue[qn++] = f;
                }
            }
        } else {
            for (Py_ssize_t j = cnt[item]; j < cnt[item + 1]; j++)
                if (--waiting[lst[j]] == 0) queue[qn++] = nf + lst[j];
        }
    }
    free(waiting);
    int relaxed_reachable = 1;
    for (Py_ssize_t i = 0; i < ng; i++)
        if (gk[2 * i + 1] < 0 || !reached[g->base[gk[2 * i]] + gk[2 * i + 1]]) relaxed_reachable = 0;
    /* ---- backward relevance: producers of each fact among alive operators (CSR) */
    memset(cnt, 0, ((size_t)nf + 2) * sizeof(Py_ssize_t));
    for (Py_ssize_t r = 0; r < nr; r++)
        if (alive[r])
            for (Py_ssize_t j = es[r]; j < es[r + 1]; j += 2) cnt[g->base[ev[j]] + ev[j + 1] + 1]++;
    for (Py_ssize_t f = 0; f < nf; f++) cnt[f + 1] += cnt[f];
    for (Py_ssize_t r = 0; r < nr; r++)
        if (alive[r])
            for (Py_ssize_t j = es[r]; j < es[r + 1]; j += 2) lst[cnt[g->base[ev[j]] + ev[j + 1]]++] = r;
    for (Py_ssize_t f = nf; f > 0; f--) cnt[f] = cnt[f - 1];
    cnt[0] = 0;
    unsigned char *rel_fact = reached; /* reuse: reached is no longer needed */
    memset(rel_fact, 0, (size_t)nf + 1);
    qn = 0;
    for (Py_ssize_t i = 0; i < ng; i++) {
        if (gk[2 * i + 1] < 0) continue;
        Py_ssize_t f = g->base[gk[2 * i]] + gk[2 * i + 1];
        if (!rel_fact[f]) {
            rel_fact[f] = 1;
            queue[qn++] = f;
        }
    }
    while (qn) {
        Py_ssize_t f = queue[--qn];
        for (Py_ssize_t j = cnt[f]; j < cnt[f + 1]; j++) {
            Py_ssize_t r = lst[j];
            if (relevant[r]) continue;
            relevant[r] = 1;
            for (Py_ssize_t q = ps[r]; q < ps[r + 1]; q += 2) {
                Py_ssize_t f2 = g->base[pv[q]] + pv[q + 1];
                if (!rel_fact[f2]) {
                    rel_fact[f2] = 1;
                    queue[qn++] = f2;
                }
            }
        }
    }
    free(queue);
    /* ---- final encoding: kept variables (some fact relevant), their bit fields */
    Py_ssize_t *kidx = cnt; /* reuse: key -> kept variable index or -1 */
    Py_ssize_t *kshift = (Py_ssize_t *)malloc(((size_t)nk + 1) * 2 * sizeof(Py_ssize_t));
    if (kshift == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    free(g->a2);
    g->a2 = kshift; /* kshift[2k] = shift, kshift[2k+1] = new base */
    PyObject *variables = PyList_New(0), *dropped = PyDict_New();
    PyObject *ops = NULL, *goal_sets = NULL, *result = NULL, *buckets = NULL;
    if (variables == NULL || dropped == NULL) goto fail;
    Py_ssize_t shift = 0, fbase = 0, nkept = 0;
    int *nbits = (int *)calloc((size_t)nk + 1, sizeof(int));
    if (nbits == NULL) {
        PyErr_NoMemory();
        goto fail;
    }
    for (Py_ssize_t i = 0; i < nk; i++) {
        Py_ssize_t len = PyList_GET_SIZE(g->domv[i]);
        int keep = 0;
        for (Py_ssize_t x = 0; x < len; x++)
            if (rel_fact[g->base[i] + x]) keep = 1;
        PyObject *k = PyList_GET_ITEM(g->keys, i);
        if (!keep) {
            kidx[i] = -1;
            PyObject *v = PyList_GET_ITEM(g->domv[i], 0);
            if (PyDict_SetItem(dropped, k, v) < 0) {
                free(nbits);
                goto fail;
            }
            continue;
        }
        int bits = 0;
        while (((Py_ssize_t)1 << bits) < len) bits++; /* (len - 1).bit_length() */
        nbits[i] = bits;
        kidx[i] = nkept++;
        kshift[2 * i] = shift;
        kshift[2 * i + 1] = fbase;
        PyObject *dom = PyList_AsTuple(g->domv[i]);
        PyObject *mask = dom ? PyLong_FromUnsignedLongLong(((unsigned long long)1 << bits) - 1) : NULL;
        PyObject *var = mask ? Py_BuildValue("(OOnOn)", k, dom, shift, mask, fbase) : NULL;
        Py_XDECREF(dom);
        Py_XDECREF(mask);
        if (var == NULL || PyList_Append(variables, var) < 0) {
            Py_XDECREF(var);
            free(nbits);
            goto fail;
        }
        Py_DECREF(var);
        shift += bits;
        fbase += len;
    }
    Py_ssize_t nwords = shift / 64 + 1;
    g->w = (uint64_t *)malloc((size_t)nwords * 4 * sizeof(uint64_t));
    g->bytebuf = (unsigned char *)malloc((size_t)nwords * 8);
    PyObject *names_[14] = {NULL};
    ops = PyList_New(0);
    if (g->w == NULL || g->bytebuf == NULL) {
        free(nbits);
        PyErr_NoMemory();
        goto fail;
    }
    if (ops == NULL) {
        free(nbits);
        goto fail;
    }
    for (int f = 0; f < 14; f++) {
        names_[f] = PyUnicode_InternFromString(FIELDS[f]);
        if (names_[f] == NULL) {
            for (int q = 0; q < f; q++) Py_DECREF(names_[q]);
            free(nbits);
            goto fail;
        }
    }
    /* Where each field lives when op_class keeps it in a slot of its own (a member descriptor of
     * object type, as @dataclass(slots=True) makes them): then the new object's slots are filled
     * directly, as object.__setattr__ would, without a descriptor lookup per field. */
    Py_ssize_t slot_at[14];
    int direct = 1;
    for (int f = 0; f < 14 && direct; f++) {
        PyObject *d = _PyType_Lookup((PyTypeObject *)op_class, names_[f]); /* borrowed; runs no code */
        if (d == NULL || !Py_IS_TYPE(d, &PyMemberDescr_Type)) {
            direct = 0;
            break;
        }
        PyMemberDef *m = ((PyMemberDescrObject *)d)->d_member;
        if (m->type != T_OBJECT_EX || (m->flags & READONLY) || m->offset < (Py_ssize_t)sizeof(PyObject) ||
            m->offset > ((PyTypeObject *)op_class)->tp_basicsize - (Py_ssize_t)sizeof(PyObject *) ||
            ((PyMemberDescrObject *)d)->d_common.d_type != (PyTypeObject *)op_class)
            direct = 0;
        else
            slot_at[f] = m->offset;
    }
    /* successor-index bucket of each operator: its precondition fact the fewest operators share
     * (ties to the smaller fact id), as goap.planning._task.Task picks it; -1 without preconditions */
    Py_ssize_t *share = (Py_ssize_t *)calloc((size_t)fbase + 1, sizeof(Py_ssize_t));
    buckets = PyList_New(0);
    if (share == NULL || buckets == NULL) {
        free(share);
        free(nbits);
        for (int f = 0; f < 14; f++) Py_DECREF(names_[f]);
        if (share == NULL) PyErr_NoMemory();
        goto fail;
    }
    for (Py_ssize_t r = 0; r < nr; r++)
        if (relevant[r])
            for (Py_ssize_t j = ps[r]; j < ps[r + 1]; j += 2)
                if (kidx[pv[j]] >= 0) share[kshift[2 * pv[j] + 1] + pv[j + 1]]++;
    PyObject *empty = PyTuple_New(0);
    int ok = empty != NULL;
    Py_ssize_t *pairs = g->a4; /* big enough for one action's items */
    for (Py_ssize_t r = 0; ok && r < nr; r++) {
        if (!relevant[r]) continue;
        uint64_t *pm = g->w, *pval_ = g->w + nwords, *em = g->w + 2 * nwords, *evl = g->w + 3 * nwords;
        memset(g->w, 0, (size_t)nwords * 4 * sizeof(uint64_t));
        Py_ssize_t np_ = 0;
        for (Py_ssize_t j = ps[r]; j < ps[r + 1]; j += 2) {
            if (kidx[pv[j]] < 0) continue;
            pairs[2 * np_] = pv[j];
            pairs[2 * np_ + 1] = pv[j + 1];
            np_++;
        }
        sort_pairs(pairs, np_);
        Py_ssize_t best = -1;
        for (Py_ssize_t j = 0; j < np_; j++) {
            Py_ssize_t fid = kshift[2 * pairs[2 * j] + 1] + pairs[2 * j + 1];
            if (best < 0 || share[fid] < share[best] || (share[fid] == share[best] && fid < best)) best = fid;
        }
        PyObject *bo = PyLong_FromSsize_t(best);
        if (bo == NULL || PyList_Append(buckets, bo) < 0) {
            Py_XDECREF(bo);
            ok = 0;
            break;
        }
        Py_DECREF(bo);
        PyObject *pre = PyTuple_New(np_);
        if (pre == NULL) {
            ok = 0;
            break;
        }
        for (Py_ssize_t j = 0; j < np_; j++) {
            Py_ssize_t k = pairs[2 * j], x = pairs[2 * j + 1];
            set_bits(pm, kshift[2 * k], ((uint64_t)1 << nbits[k]) - 1, nbits[k]);
            set_bits(pval_, kshift[2 * k], (uint64_t)x, nbits[k]);
            PyObject *fid = PyLong_FromSsize_t(kshift[2 * k + 1] + x);
            if (fid == NULL) {
                ok = 0;
                break;
            }
            PyTuple_SET_ITEM(pre, j, fid);
        }
        if (!ok) {
            Py_DECREF(pre);
            break;
        }
        Py_ssize_t ne = 0;
        for (Py_ssize_t j = es[r]; j < es[r + 1]; j += 2) {
            if (kidx[ev[j]] < 0) continue;
            pairs[2 * ne] = ev[j];
            pairs[2 * ne + 1] = ev[j + 1];
            ne++;
        }
        sort_pairs(pairs, ne);
        PyObject *eff = PyTuple_New(ne);
        for (Py_ssize_t j = 0; eff != NULL && j < ne; j++) {
            Py_ssize_t k = pairs[2 * j], x = pairs[2 * j + 1];
            set_bits(em, kshift[2 * k], ((uint64_t)1 << nbits[k]) - 1, nbits[k]);
            set_bits(evl, kshift[2 * k], (uint64_t)x, nbits[k]);
            PyObject *fid = PyLong_FromSsize_t(kshift[2 * k + 1] + x);
            if (fid == NULL) {
                Py_CLEAR(eff);
                break;
            }
            PyTuple_SET_ITEM(eff, j, fid);
        }
        if (eff == NULL) {
            Py_DECREF(pre);
            ok = 0;
            break;
        }
        PyObject *vals[14] = {NULL};
        vals[0] = PyLong_FromSsize_t(PyList_GET_SIZE(ops));
        vals[1] = PyTuple_GET_ITEM(acts, g->raw_act.v[r]);
        Py_INCREF(vals[1]);
        vals[2] = pre;
        vals[3] = eff;
        vals[4] = long_of_words(pm, nwords, g->bytebuf);
        vals[5] = vals[4] ? long_of_words(pval_, nwords, g->bytebuf) : NULL;
        PyObject *emask = vals[5] ? long_of_words(em, nwords, g->bytebuf) : NULL;
        vals[6] = emask ? PyNumber_Invert(emask) : NULL;
        Py_XDECREF(emask);
        vals[7] = vals[6] ? long_of_words(evl, nwords, g->bytebuf) : NULL;
        vals[8] = PyList_GET_ITEM(costs, g->raw_act.v[r]);
        Py_INCREF(vals[8]);
        vals[9] = Py_None;
        Py_INCREF(Py_None);
        for (int f = 10; f < 14; f++) {
            vals[f] = empty;
            Py_INCREF(empty);
        }
        PyObject *op = NULL;
        for (int f = 0; f < 14; f++)
            if (vals[f] == NULL) ok = 0;
        if (ok) {
            /* a frozen dataclass: set the slots as its generated __init__ does (object.__setattr__) */
            op = PyBaseObject_Type.tp_new((PyTypeObject *)op_class, empty, NULL);
            if (op != NULL && direct)
                for (int f = 0; f < 14; f++) { /* the new object's slots are all NULL */
                    Py_INCREF(vals[f]);
                    *(PyObject **)((char *)op + slot_at[f]) = vals[f];
                }
            else
                for (int f = 0; op != NULL && f < 14; f++)
                    if (PyObject_GenericSetAttr(op, names_[f], vals[f]) < 0) Py_CLEAR(op);
            if (op == NULL || PyList_Append(ops, op) < 0) ok = 0;
            Py_XDECREF(op);
        }
        for (int f = 0; f < 14; f++) Py_XDECREF(vals[f]);
    }
    Py_XDECREF(empty);
    free(share);
    for (int f = 0; f < 14; f++) Py_DECREF(names_[f]);
    if (!ok) {
        free(nbits);
        goto fail;
    }
    free(nbits);
    /* goal sets: sorted by key, kept keys only; the domain index of a kept key is kidx */
    goal_sets = PyList_New(0);
    if (goal_sets == NULL) goto fail;
    int impossible = 0;
    for (Py_ssize_t i = 0; i < ng; i++)
        if (gk[2 * i + 1] < 0) impossible = 1;
    qsort(gk, (size_t)ng, 2 * sizeof(Py_ssize_t), cmp_pair);
    for (Py_ssize_t i = 0; i < ng; i++) {
        Py_ssize_t k = gk[2 * i];
        if (kidx[k] < 0) continue;
        PyObject *fs = PyFrozenSet_New(NULL);
        if (fs == NULL) goto fail;
        if (gk[2 * i + 1] >= 0) {
            PyObject *x = PyLong_FromSsize_t(gk[2 * i + 1]);
            if (x == NULL || PySet_Add(fs, x) < 0) {
                Py_XDECREF(x);
                Py_DECREF(fs);
                goto fail;
            }
            Py_DECREF(x);
        }
        PyObject *pair = Py_BuildValue("(nN)", kidx[k], fs);
        if (pair == NULL || PyList_Append(goal_sets, pair) < 0) {
            Py_XDECREF(pair);
            goto fail;
        }
        Py_DECREF(pair);
    }
    result = Py_BuildValue("(NNNnNOON)", variables, ops, goal_sets, nr - PyList_GET_SIZE(ops), dropped,
                           impossible ? Py_True : Py_False, relaxed_reachable ? Py_True : Py_False, buckets);
    variables = ops = goal_sets = dropped = buckets = NULL;
    if (result == NULL) goto done;
    *out = result;
    rc = 0;
    goto done;
fail:
    Py_XDECREF(buckets);
    Py_XDECREF(variables);
    Py_XDECREF(dropped);
    Py_XDECREF(ops);
    Py_XDECREF(goal_sets);
done:
    Py_XDECREF(initial);
    Py_XDECREF(goal_items);
    Py_XDECREF(acts);
    return rc;
}

static PyObject *py_compile_plain(PyObject *self, PyObject *args) {
    PyObject *initial, *goal, *actions, *op_class;
    if (!PyArg_ParseTuple(args, "OOOO:compile_plain", &initial, &goal, &actions, &op_class)) return NULL;
    if (!PyType_Check(op_class) || ((PyTypeObject *)op_class)->tp_new != PyBaseObject_Type.tp_new) {
        PyErr_SetString(PyExc_TypeError, "op_class must be a plain class (goap.planning._compile.CompiledOp)");
        return NULL;
    }
    G g;
    memset(&g, 0, sizeof g);
    PyObject *out = NULL;
    int rc = compile_plain(&g, initial, goal, actions, op_class, &out);
    g_free(&g);
    if (rc < 0) return NULL;
    if (rc == UNSUPPORTED) {
        if (PyErr_Occurred()) return NULL;
        Py_RETURN_NONE;
    }
    return out;
}

static PyMethodDef methods[] = {
    {"compile_plain", py_compile_plain, METH_VARARGS,
     "compile_plain(initial, goal, actions, op_class) -> tuple | None: ground a plain task."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef moduledef = {PyModuleDef_HEAD_INIT, "goap.planning._ground",
                                       "C grounding of plain tasks (see goap.planning._compile).", -1, methods,
                                       NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__ground(void) {
    if (S_copy == NULL) {
        S_copy = PyUnicode_InternFromString("copy");
        S_name = PyUnicode_InternFromString("name");
        S_cost = PyUnicode_InternFromString("cost");
        S_pre = PyUnicode_InternFromString("preconditions");
        S_eff = PyUnicode_InternFromString("effects");
        if (!S_copy || !S_name || !S_cost || !S_pre || !S_eff) return NULL;
    }
    return PyModule_Create(&moduledef);
}
