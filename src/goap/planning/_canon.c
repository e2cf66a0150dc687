/* goap.planning._lmcut.Canon: goap.planning._symmetry's canonical form of a packed state, in C.
 *
 * Symmetry.canon maps every generated state to the representative of its class of symmetric
 * states, and on symmetric tasks (gripper) it runs once per generated state: in Python it cost more
 * than the rest of the search. This is a port of goap.planning._symmetry._Class.canon and
 * Symmetry._canon_new: each class of interchangeable objects sorts its objects by the same
 * signature (stable sort, so ties keep their order), and the state is rewritten through the
 * resulting permutation. Same representative, same permutation tuple (tests compare both on every
 * state the searches generate).
 *
 * Canon(varinfo, classes): varinfo = [(shift, width)] of every variable; each class is a dict
 *   n        number of objects
 *   own      per variable: the object owning it, or -1
 *   ktid     per variable: its key template id (owned variables)
 *   wcode    per variable: its code in a reference signature entry
 *   ref      per variable, per value: (object, value template id) or None
 *   owned    per object: its variables in key-template order
 *   tv       [(key template id, object, variable)]
 *   vmap     [(variable, value template id, object, value)]
 *   refvars  variables with a value that names an object of the class
 *   touch    variables a permutation of the class can change
 * canon(state) -> (representative, permutation tuple per class, or None when unchanged).
 *
 * Runs no Python code while its arrays hold live data; bad input raises, never crashes.
 */
#include "_lmcut.h"

static void class_free(Class *k) {
    void *ptrs[] = {k->own,  k->ktid, k->wcode, k->ref_start, k->refobj,  k->refvt,   k->owned_start,
                    k->owned, k->tv,  k->vmap_off, k->vmap,   k->refvars, k->touch};
    for (size_t i = 0; i < sizeof(ptrs) / sizeof(ptrs[0]); i++) PyMem_Free(ptrs[i]);
    Py_XDECREF(k->identity);
}

static void canon_clear(CanonObject *c) {
    if (c->classes)
        for (int i = 0; i < c->nclasses; i++) class_free(&c->classes[i]);
    void *ptrs[] = {c->shift, c->width, c->classes, c->repack, c->vals, c->newidx, c->order,
                    c->sigstart, c->pairs, c->sigs, c->words, c->bytes};
    for (size_t i = 0; i < sizeof(ptrs) / sizeof(ptrs[0]); i++) PyMem_Free(ptrs[i]);
    c->shift = c->width = c->repack = c->vals = c->newidx = c->order = c->sigstart = c->pairs = NULL;
    c->classes = NULL;
    c->sigs = NULL;
    c->words = NULL;
    c->bytes = NULL;
    c->ready = c->nclasses = c->nrepack = c->sigcap = 0;
}

static void Canon_dealloc(CanonObject *self) {
    canon_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* ---------------------------------------------------------------- the canonical form */

static int sig_less(const CanonObject *c, int a, int b) {
    const long long *x = c->sigs + c->sigstart[a], *y = c->sigs + c->sigstart[b];
    int nx = c->sigstart[a + 1] - c->sigstart[a], ny = c->sigstart[b + 1] - c->sigstart[b];
    for (int i = 0; i < nx && i < ny; i++)
        if (x[i] != y[i]) return x[i] < y[i];
    return nx < ny;
}

/* Canonical form of the words in place; *perm gets a new reference (NULL: unchanged). -1 with an
 * exception set on a state outside the task's encoding. */
static int canon_run(CanonObject *c, uint64_t *w, PyObject **perm);

/* A collection triggered by an allocation below may run a finalizer that calls this canonicalizer
 * again: its scratch arrays would be overwritten mid-use, so a nested call is refused. */
int canon_words(CanonObject *c, uint64_t *w, PyObject **perm) {
    *perm = NULL;
    if (c->busy) {
        PyErr_SetString(PyExc_RuntimeError, "Canon is not re-entrant");
        return -1;
    }
    c->busy = 1;
    int rc = canon_run(c, w, perm);
    c->busy = 0;
    return rc;
}

static int canon_run(CanonObject *c, uint64_t *w, PyObject **perm) {
    *perm = NULL;
    int *vals = c->vals;
    for (int v = 0; v < c->nv; v++) vals[v] = (int)state_bits(w, c->shift[v], c->width[v]);
    int changed = 0;
    PyObject *perms = NULL;
    for (int ci = 0; ci < c->nclasses; ci++) {
        Class *k = &c->classes[ci];
        int n = k->n;
        /* signatures: owned values (coded), then (wcode, template) of each reference */
        int len = 0;
        for (int i = 0; i < n; i++) len += k->owned_start[i + 1] - k->owned_start[i];
        len += 2 * k->nrefvars;
        if (len > c->sigcap) {
            long long *ns = PyMem_Realloc(c->sigs, (size_t)len * sizeof(long long));
            if (!ns) {
                Py_XDECREF(perms);
                PyErr_NoMemory();
                return -1;
            }
            c->sigs = ns;
            c->sigcap = len;
        }
        /* references go after the owned part of their object: count them first */
        int *cnt = c->newidx;
        for (int i = 0; i < n; i++) cnt[i] = 0;
        for (int j = 0; j < k->nrefvars; j++) {
            int v = k->refvars[j];
            int x = vals[v];
            if (x >= k->ref_start[v + 1] - k->ref_start[v]) goto bad;
            int o = k->refobj[k->ref_start[v] + x];
            if (o >= 0) cnt[o]++;
        }
        int pos = 0;
        for (int i = 0; i < n; i++) {
            c->sigstart[i] = pos;
            for (int q = k->owned_start[i]; q < k->owned_start[i + 1]; q++) {
                int v = k->owned[q];
                int x = vals[v];
                if (x >= k->ref_start[v + 1] - k->ref_start[v]) goto bad;
                int r = k->ref_start[v] + x;
                c->sigs[pos++] = k->refobj[r] < 0 ? x : -1 - (long long)k->refvt[r];
            }
            pos += 2 * cnt[i];
        }
        c->sigstart[n] = pos;
        for (int i = 0; i < n; i++) cnt[i] = c->sigstart[i] + (k->owned_start[i + 1] - k->owned_start[i]);
        for (int j = 0; j < k->nrefvars; j++) {
            int v = k->refvars[j];
            int r = k->ref_start[v] + vals[v];
            int o = k->refobj[r];
            if (o < 0) continue;
            c->sigs[cnt[o]++] = k->wcode[v];
            c->sigs[cnt[o]++] = k->refvt[r];
        }
        int sorted = 1;
        for (int i = 1; i < n; i++)
            if (sig_less(c, i, i - 1)) {
                sorted = 0;
                break;
            }
        if (sorted) continue; /* already canonical (a stable sort keeps the order) */
        /* stable insertion sort of the objects by signature (classes are small) */
        int *order = c->order;
        for (int i = 0; i < n; i++) {
            int x = i, j = i;
            while (j > 0 && sig_less(c, x, order[j - 1])) {
                order[j] = order[j - 1];
                j--;
            }
            order[j] = x;
        }
        int *newidx = c->newidx;
        for (int q = 0; q < n; q++) newidx[order[q]] = q;
        PyObject *p = PyTuple_New(n);
        if (!p) {
            Py_XDECREF(perms);
            return -1;
        }
        for (int i = 0; i < n; i++) {
            PyObject *x = PyLong_FromLong(newidx[i]);
            if (!x) {
                Py_DECREF(p);
                Py_XDECREF(perms);
                return -1;
            }
            PyTuple_SET_ITEM(p, i, x);
        }
        if (!perms) {
            perms = PyTuple_New(c->nclasses);
            if (!perms) {
                Py_DECREF(p);
                return -1;
            }
            for (int q = 0; q < c->nclasses; q++) {
                Py_INCREF(c->classes[q].identity);
                PyTuple_SET_ITEM(perms, q, c->classes[q].identity);
            }
        }
        Py_DECREF(PyTuple_GET_ITEM(perms, ci));
        PyTuple_SET_ITEM(perms, ci, p);
        changed = 1;
        /* rewrite the touched variables through the permutation (reading the old values) */
        int nt = k->ntouch;
        int *pairs = c->pairs;
        for (int j = 0; j < nt; j++) {
            int v = k->touch[j];
            int x = vals[v];
            int o = k->own[v];
            int tgt = v;
            if (o >= 0) {
                tgt = k->tv[k->ktid[v] * n + newidx[o]];
                if (tgt < 0) goto bad_pairs;
            }
            if (x >= k->ref_start[v + 1] - k->ref_start[v]) goto bad_pairs;
            int r = k->ref_start[v] + x;
            int nx = x;
            if (k->refobj[r] >= 0) {
                int off = k->vmap_off[tgt];
                if (off < 0) goto bad_pairs;
                nx = k->vmap[off + k->refvt[r] * n + newidx[k->refobj[r]]];
                if (nx < 0) goto bad_pairs;
            }
            pairs[2 * j] = tgt;
            pairs[2 * j + 1] = nx;
        }
        for (int j = 0; j < nt; j++) vals[pairs[2 * j]] = pairs[2 * j + 1];
        continue;
    bad_pairs:
        Py_DECREF(perms);
        PyErr_SetString(PyExc_ValueError, "canon: a state outside the symmetry's tables");
        return -1;
    }
    if (!changed) return 0;
    /* sorting one class can unsort another and the permutations can compose to one that fixes the
     * state: then there is nothing to fold, and None keeps the parent link a plain one */
    int same = 1;
    for (int j = 0; j < c->nrepack && same; j++) {
        int v = c->repack[j];
        same = vals[v] == (int)state_bits(w, c->shift[v], c->width[v]);
    }
    if (same) {
        Py_DECREF(perms);
        return 0;
    }
    for (int j = 0; j < c->nrepack; j++) {
        int v = c->repack[j];
        int sh = c->shift[v], wd = c->width[v];
        for (int b = 0; b < wd; b++) {
            int bit = sh + b;
            uint64_t m = (uint64_t)1 << (bit & 63);
            if ((vals[v] >> b) & 1)
                w[bit >> 6] |= m;
            else
                w[bit >> 6] &= ~m;
        }
    }
    *perm = perms;
    return 0;
bad:
    Py_XDECREF(perms);
    PyErr_SetString(PyExc_ValueError, "canon: a state holds a value outside a domain");
    return -1;
}

static PyObject *canon_call(CanonObject *c, PyObject *const *args, size_t nargsf, PyObject *kwnames);

static PyObject *Canon_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames) {
    CanonObject *c = (CanonObject *)self;
    if (c->busy) {
        PyErr_SetString(PyExc_RuntimeError, "Canon is not re-entrant");
        return NULL;
    }
    c->busy = 1; /* c->words and c->bytes stay in use across the allocations below */
    PyObject *r = canon_call(c, args, nargsf, kwnames);
    c->busy = 0;
    return r;
}

static PyObject *canon_call(CanonObject *c, PyObject *const *args, size_t nargsf, PyObject *kwnames) {
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    if (nargs != 1 || (kwnames && PyTuple_GET_SIZE(kwnames))) {
        PyErr_SetString(PyExc_TypeError, "canon(state) takes 1 argument");
        return NULL;
    }
    if (!c->ready) {
        PyErr_SetString(PyExc_RuntimeError, "Canon is not initialised");
        return NULL;
    }
    PyObject *state = args[0];
    if (!PyLong_Check(state)) {
        PyErr_SetString(PyExc_TypeError, "canon(state): the state must be an int");
        return NULL;
    }
    if (state_from_int(state, c->words, c->nw, c->bytes, "canon(state)") < 0) return NULL;
    PyObject *perm;
    if (canon_run(c, c->words, &perm) < 0) return NULL;
    if (!perm) return PyTuple_Pack(2, state, Py_None);
    PyObject *rep = state_to_int(c->words, c->nw, c->bytes);
    if (!rep) {
        Py_DECREF(perm);
        return NULL;
    }
    PyObject *res = PyTuple_Pack(2, rep, perm);
    Py_DECREF(rep);
    Py_DECREF(perm);
    return res;
}

/* ---------------------------------------------------------------- construction */

int int_array(PyObject *seq, const char *owner, const char *what, long lo, long hi, int **out, int *n) {
    PyObject *t = PySequence_Tuple(seq);
    if (!t) return -1;
    Py_ssize_t len = PyTuple_GET_SIZE(t);
    if (len > INT32_MAX / 4) {
        Py_DECREF(t);
        PyErr_Format(PyExc_ValueError, "%s: %s too long", owner, what);
        return -1;
    }
    *out = PyMem_Calloc((size_t)len + 1, sizeof(int));
    if (!*out) {
        Py_DECREF(t);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < len; i++) {
        long v = PyLong_AsLong(PyTuple_GET_ITEM(t, i));
        if (v == -1 && PyErr_Occurred()) {
            Py_DECREF(t);
            return -1;
        }
        if (v < lo || v >= hi) {
            Py_DECREF(t);
            PyErr_Format(PyExc_ValueError, "%s: %s: %ld out of range", owner, what, v);
            return -1;
        }
        (*out)[i] = (int)v;
    }
    Py_DECREF(t);
    *n = (int)len;
    return 0;
}

static PyObject *item(PyObject *d, const char *key) {
    PyObject *v = PyDict_GetItemString(d, key); /* borrowed */
    if (!v) PyErr_Format(PyExc_KeyError, "Canon: class without %s", key);
    return v;
}

static int class_setup(CanonObject *c, Class *k, PyObject *spec) {
    if (!PyDict_Check(spec)) {
        PyErr_SetString(PyExc_TypeError, "Canon: each class is a dict");
        return -1;
    }
    PyObject *v;
    int nv = c->nv, len;
    if (!(v = item(spec, "n"))) return -1;
    long n = PyLong_AsLong(v);
    if (n == -1 && PyErr_Occurred()) return -1;
    if (n < 1 || n > 1 << 20) {
        PyErr_SetString(PyExc_ValueError, "Canon: n out of range");
        return -1;
    }
    k->n = (int)n;
    if (!(v = item(spec, "own")) || int_array(v, "Canon", "own", -1, n, &k->own, &len) < 0) return -1;
    if (len != nv) goto wrong_len;
    if (!(v = item(spec, "ktid")) || int_array(v, "Canon", "ktid", -1, INT32_MAX / 4, &k->ktid, &len) < 0) return -1;
    if (len != nv) goto wrong_len;
    for (int i = 0; i < nv; i++) {
        if (k->ktid[i] + 1 > k->ntid) k->ntid = k->ktid[i] + 1;
        if (k->own[i] >= 0 && k->ktid[i] < 0) {
            PyErr_SetString(PyExc_ValueError, "Canon: an owned variable needs a key template");
            return -1;
        }
    }
    int *wc;
    if (!(v = item(spec, "wcode")) || int_array(v, "Canon", "wcode", INT32_MIN / 2, INT32_MAX / 2, &wc, &len) < 0)
        return -1;
    k->wcode = PyMem_Calloc((size_t)nv + 1, sizeof(long long));
    if (!k->wcode) {
        PyMem_Free(wc);
        PyErr_NoMemory();
        return -1;
    }
    for (int i = 0; i < len && i < nv; i++) k->wcode[i] = wc[i];
    PyMem_Free(wc);
    if (len != nv) goto wrong_len;
    /* ref: per variable, per value, (object, template) or None */
    if (!(v = item(spec, "ref"))) return -1;
    PyObject *refs = tuple_of_len(v, nv, "Canon: one entry per variable");
    if (!refs) return -1;
    k->ref_start = PyMem_Calloc((size_t)nv + 1, sizeof(int));
    if (!k->ref_start) {
        Py_DECREF(refs);
        PyErr_NoMemory();
        return -1;
    }
    PyObject *rows = PyTuple_New(nv);
    if (!rows) {
        Py_DECREF(refs);
        return -1;
    }
    long long total = 0;
    for (int i = 0; i < nv; i++) {
        PyObject *row = PySequence_Tuple(PyTuple_GET_ITEM(refs, i));
        if (!row) {
            Py_DECREF(rows);
            Py_DECREF(refs);
            return -1;
        }
        PyTuple_SET_ITEM(rows, i, row);
        k->ref_start[i] = (int)total;
        total += PyTuple_GET_SIZE(row);
        if (PyTuple_GET_SIZE(row) > ((Py_ssize_t)1 << c->width[i]) || total > INT32_MAX / 4) {
            Py_DECREF(rows);
            Py_DECREF(refs);
            PyErr_SetString(PyExc_ValueError, "Canon: ref: more values than the variable holds");
            return -1;
        }
    }
    Py_DECREF(refs);
    k->ref_start[nv] = (int)total;
    k->refobj = PyMem_Calloc((size_t)total + 1, sizeof(int));
    k->refvt = PyMem_Calloc((size_t)total + 1, sizeof(int));
    if (!k->refobj || !k->refvt) {
        Py_DECREF(rows);
        PyErr_NoMemory();
        return -1;
    }
    for (int i = 0; i < nv; i++) {
        PyObject *row = PyTuple_GET_ITEM(rows, i);
        for (Py_ssize_t x = 0; x < PyTuple_GET_SIZE(row); x++) {
            PyObject *r = PyTuple_GET_ITEM(row, x);
            int at = k->ref_start[i] + (int)x;
            if (r == Py_None) {
                k->refobj[at] = -1;
                k->refvt[at] = -1;
                continue;
            }
            long o = -1, t = -1;
            if (PyTuple_Check(r) && PyTuple_GET_SIZE(r) == 2) {
                o = PyLong_AsLong(PyTuple_GET_ITEM(r, 0));
                if (!(o == -1 && PyErr_Occurred())) t = PyLong_AsLong(PyTuple_GET_ITEM(r, 1));
            }
            if (PyErr_Occurred()) {
                Py_DECREF(rows);
                return -1;
            }
            if (o < 0 || o >= n || t < 0 || t > INT32_MAX / 4) {
                Py_DECREF(rows);
                PyErr_SetString(PyExc_ValueError, "Canon: ref: bad (object, template)");
                return -1;
            }
            k->refobj[at] = (int)o;
            k->refvt[at] = (int)t;
            if (t + 1 > k->nvt) k->nvt = (int)t + 1;
        }
    }
    Py_DECREF(rows);
    /* owned: per object, its variables */
    if (!(v = item(spec, "owned"))) return -1;
    PyObject *ow = tuple_of_len(v, n, "Canon: owned: one list per object");
    if (!ow) return -1;
    k->owned_start = PyMem_Calloc((size_t)n + 1, sizeof(int));
    k->owned = PyMem_Calloc((size_t)nv + 1, sizeof(int));
    if (!k->owned_start || !k->owned) {
        Py_DECREF(ow);
        PyErr_NoMemory();
        return -1;
    }
    int pos = 0;
    for (int i = 0; i < n; i++) {
        int *vs, m;
        if (int_array(PyTuple_GET_ITEM(ow, i), "Canon", "owned", 0, nv, &vs, &m) < 0) {
            Py_DECREF(ow);
            return -1;
        }
        k->owned_start[i] = pos;
        for (int j = 0; j < m; j++) {
            if (pos >= nv || k->own[vs[j]] != i) {
                PyMem_Free(vs);
                Py_DECREF(ow);
                PyErr_SetString(PyExc_ValueError, "Canon: owned: a variable not owned by its object");
                return -1;
            }
            k->owned[pos++] = vs[j];
        }
        PyMem_Free(vs);
    }
    k->owned_start[n] = pos;
    Py_DECREF(ow);
    /* tv: dense (key template, object) -> variable */
    k->tv = PyMem_Malloc(((size_t)k->ntid * (size_t)n + 1) * sizeof(int));
    if (!k->tv) {
        PyErr_NoMemory();
        return -1;
    }
    for (long long i = 0; i < (long long)k->ntid * n; i++) k->tv[i] = -1;
    if (!(v = item(spec, "tv"))) return -1;
    PyObject *tvs = PySequence_Tuple(v);
    if (!tvs) return -1;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(tvs); i++) {
        int *e, m;
        if (int_array(PyTuple_GET_ITEM(tvs, i), "Canon", "tv", 0, INT32_MAX / 4, &e, &m) < 0) {
            Py_DECREF(tvs);
            return -1;
        }
        if (m != 3 || e[0] >= k->ntid || e[1] >= n || e[2] >= nv) {
            PyMem_Free(e);
            Py_DECREF(tvs);
            PyErr_SetString(PyExc_ValueError, "Canon: tv: bad (template, object, variable)");
            return -1;
        }
        k->tv[e[0] * n + e[1]] = e[2];
        PyMem_Free(e);
    }
    Py_DECREF(tvs);
    /* vmap: per variable a dense [template * n] block of values */
    if (!(v = item(spec, "vmap"))) return -1;
    PyObject *vms = PySequence_Tuple(v);
    if (!vms) return -1;
    k->vmap_off = PyMem_Malloc(((size_t)nv + 1) * sizeof(int));
    if (!k->vmap_off) {
        Py_DECREF(vms);
        PyErr_NoMemory();
        return -1;
    }
    for (int i = 0; i < nv; i++) k->vmap_off[i] = -1;
    int *quads = PyMem_Calloc((size_t)PyTuple_GET_SIZE(vms) * 4 + 1, sizeof(int));
    if (!quads) {
        Py_DECREF(vms);
        PyErr_NoMemory();
        return -1;
    }
    long long blocks = 0, block = (long long)k->nvt * n;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(vms); i++) {
        int *e, m;
        if (int_array(PyTuple_GET_ITEM(vms, i), "Canon", "vmap", 0, INT32_MAX / 4, &e, &m) < 0) {
            PyMem_Free(quads);
            Py_DECREF(vms);
            return -1;
        }
        if (m != 4 || e[0] >= nv || e[1] >= k->nvt || e[2] >= n ||
            e[3] >= k->ref_start[e[0] + 1] - k->ref_start[e[0]]) {
            PyMem_Free(e);
            PyMem_Free(quads);
            Py_DECREF(vms);
            PyErr_SetString(PyExc_ValueError, "Canon: vmap: bad (variable, template, object, value)");
            return -1;
        }
        memcpy(quads + 4 * i, e, 4 * sizeof(int));
        PyMem_Free(e);
        if (k->vmap_off[quads[4 * i]] < 0) {
            if ((blocks + 1) * block > INT32_MAX / 4) {
                PyMem_Free(quads);
                Py_DECREF(vms);
                PyErr_SetString(PyExc_ValueError, "Canon: vmap too large");
                return -1;
            }
            k->vmap_off[quads[4 * i]] = (int)(blocks * block);
            blocks++;
        }
    }
    k->vmap = PyMem_Malloc(((size_t)(blocks * block) + 1) * sizeof(int));
    if (!k->vmap) {
        PyMem_Free(quads);
        Py_DECREF(vms);
        PyErr_NoMemory();
        return -1;
    }
    for (long long i = 0; i < blocks * block; i++) k->vmap[i] = -1;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(vms); i++) {
        int *q = quads + 4 * i;
        k->vmap[k->vmap_off[q[0]] + q[1] * n + q[2]] = q[3];
    }
    PyMem_Free(quads);
    Py_DECREF(vms);
    if (!(v = item(spec, "refvars")) || int_array(v, "Canon", "refvars", 0, nv, &k->refvars, &k->nrefvars) < 0)
        return -1;
    if (!(v = item(spec, "touch")) || int_array(v, "Canon", "touch", 0, nv, &k->touch, &k->ntouch) < 0) return -1;
    k->identity = PyTuple_New(n);
    if (!k->identity) return -1;
    for (int i = 0; i < n; i++) {
        PyObject *x = PyLong_FromLong(i);
        if (!x) return -1;
        PyTuple_SET_ITEM(k->identity, i, x);
    }
    return 0;
wrong_len:
    PyErr_SetString(PyExc_ValueError, "Canon: one entry per variable");
    return -1;
}

static int canon_setup(CanonObject *c, PyObject *varinfo, PyObject *classes) {
    PyObject *vi = PySequence_Tuple(varinfo);
    if (!vi) return -1;
    Py_ssize_t nv = PyTuple_GET_SIZE(vi);
    if (nv < 1 || nv > INT32_MAX / 8) {
        Py_DECREF(vi);
        PyErr_SetString(PyExc_ValueError, "Canon: varinfo must describe the task's variables");
        return -1;
    }
    c->nv = (int)nv;
    c->shift = PyMem_Calloc((size_t)nv + 1, sizeof(int));
    c->width = PyMem_Calloc((size_t)nv + 1, sizeof(int));
    c->vals = PyMem_Calloc((size_t)nv + 1, sizeof(int));
    if (!c->shift || !c->width || !c->vals) {
        Py_DECREF(vi);
        PyErr_NoMemory();
        return -1;
    }
    int max_shift = 0;
    for (Py_ssize_t i = 0; i < nv; i++) {
        int *e, m;
        if (int_array(PyTuple_GET_ITEM(vi, i), "Canon", "varinfo", 0, 1 << 26, &e, &m) < 0) {
            Py_DECREF(vi);
            return -1;
        }
        if (m != 2 || e[1] > 30) {
            PyMem_Free(e);
            Py_DECREF(vi);
            PyErr_SetString(PyExc_ValueError, "Canon: varinfo: (shift, width) pairs, width <= 30");
            return -1;
        }
        c->shift[i] = e[0];
        c->width[i] = e[1];
        if (e[0] + e[1] > max_shift) max_shift = e[0] + e[1];
        PyMem_Free(e);
    }
    Py_DECREF(vi);
    c->nw = max_shift / 64 + 1; /* as the search sizes its states */
    c->words = PyMem_Calloc((size_t)c->nw, sizeof(uint64_t));
    c->bytes = PyMem_Calloc((size_t)c->nw * 8, 1);
    PyObject *cl = PySequence_Tuple(classes);
    if (!cl) return -1;
    Py_ssize_t nc = PyTuple_GET_SIZE(cl);
    c->classes = PyMem_Calloc((size_t)nc + 1, sizeof(Class));
    c->repack = PyMem_Calloc((size_t)nv + 1, sizeof(int));
    unsigned char *touched = PyMem_Calloc((size_t)nv + 1, 1);
    if (!c->words || !c->bytes || !c->classes || !c->repack || !touched) {
        PyMem_Free(touched);
        Py_DECREF(cl);
        PyErr_NoMemory();
        return -1;
    }
    int maxn = 1, maxtouch = 1;
    for (Py_ssize_t i = 0; i < nc; i++) {
        c->nclasses = (int)i + 1; /* class_free runs on this one too if its set-up fails */
        if (class_setup(c, &c->classes[i], PyTuple_GET_ITEM(cl, i)) < 0) {
            PyMem_Free(touched);
            Py_DECREF(cl);
            return -1;
        }
        Class *k = &c->classes[i];
        if (k->n > maxn) maxn = k->n;
        if (k->ntouch > maxtouch) maxtouch = k->ntouch;
        for (int j = 0; j < k->ntouch; j++) touched[k->touch[j]] = 1;
    }
    Py_DECREF(cl);
    for (int v = 0; v < nv; v++)
        if (touched[v]) c->repack[c->nrepack++] = v;
    PyMem_Free(touched);
    c->newidx = PyMem_Calloc((size_t)maxn + 1, sizeof(int));
    c->order = PyMem_Calloc((size_t)maxn + 1, sizeof(int));
    c->sigstart = PyMem_Calloc((size_t)maxn + 2, sizeof(int));
    c->pairs = PyMem_Calloc(2 * (size_t)maxtouch + 1, sizeof(int));
    if (!c->newidx || !c->order || !c->sigstart || !c->pairs) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

static int Canon_init(CanonObject *self, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"varinfo", "classes", NULL};
    PyObject *varinfo, *classes;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OO", kwlist, &varinfo, &classes)) return -1;
    if (self->ready) {
        PyErr_SetString(PyExc_RuntimeError, "Canon is already initialised");
        return -1;
    }
    canon_clear(self);
    if (canon_setup(self, varinfo, classes) < 0) {
        canon_clear(self);
        return -1;
    }
    self->ready = 1;
    return 0;
}

static PyObject *Canon_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    CanonObject *self = (CanonObject *)type->tp_alloc(type, 0);
    if (self) self->vectorcall = Canon_vectorcall;
    return (PyObject *)self;
}

static PyObject *Canon_call(PyObject *self, PyObject *args, PyObject *kwds) {
    return PyVectorcall_Call(self, args, kwds);
}

PyTypeObject CanonType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "goap.planning._lmcut.Canon",
    .tp_basicsize = sizeof(CanonObject),
    .tp_dealloc = (destructor)Canon_dealloc,
    .tp_vectorcall_offset = offsetof(CanonObject, vectorcall),
    .tp_call = Canon_call,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_doc = "canon(state) -> (representative, permutation): goap.planning._symmetry's canonical form (see _canon.c).",
    .tp_init = (initproc)Canon_init,
    .tp_new = Canon_new,
};
