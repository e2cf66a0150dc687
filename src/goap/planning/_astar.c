/* Core.search: goap.planning._search.best_first in C, for plain tasks under the C LM-cut.
 *
 * A cold planning call spends most of its time in the interpreter around the heuristic: popping
 * tuples, hashing int states, generating successors, handing landmarks between Python and C. This
 * file runs that loop on C arrays and calls LM-cut (lmcut_run) directly. It is a port of
 * best_first step for step, so it returns what best_first returns with the same heuristic: the
 * same open-list order ((key, h, counter), the counter unique), the same lazy evaluation with
 * inherited landmarks and pathmax, the same reopening, the same symmetry switch and restart, the same
 * path and the same counts (tests compare the two on every shared problem and on generated tasks).
 *
 * search(ops, buckets, goal, weight, greedy, limit, deadline, clock, canon, detect, switch_at)
 *   ops      the compiled operators (objects with pre, eff: tuples of fact ids, and cost: float),
 *            pure mask arithmetic: no residual, numeric or state-dependent part
 *   buckets  the successor-index fact of each operator (-1: none), as goap.planning._task.Task picks it
 *   goal     the goal's fact ids (one per goal variable)
 *   weight, greedy, limit (-1: none), deadline (None or a clock() value), clock (a callable
 *   returning seconds, read after every heuristic evaluation and every expansion when there is a
 *   deadline, so a timeout is overrun by at most one of them), canon (None or
 *   state -> (representative, permutation)), detect (None or () -> canon or None, called once
 *   when `switch_at` states have been expanded), max_bytes (optional, -1: none: the search ends
 *   "budget_exhausted" when its tables hold more, see search_bytes), lm_bytes_min (optional: the
 *   landmark bytes held before dead ones are first dropped, see drop_landmarks)
 * returns (status, [(op index, permutation or None)], cost, expanded, generated, evaluated,
 *          reopened, initial h)
 *
 * States are packed ints as in goap.planning._compile, held as little-endian arrays of 64-bit words; they
 * become Python ints only to cross into canon. Python code runs only in clock, canon and detect,
 * never while Core scratch arrays hold live data (lmcut_run has returned and its landmarks are
 * copied out), so a callback that evaluates with the same Core is harmless. Every id is checked;
 * bad input raises ValueError/TypeError, never a crash.
 */
#include "_lmcut.h"

/* Whether the clock says the deadline passed: 1 yes, 0 no, -1 error (set). Read after each unit of
 * work: one heuristic evaluation on a big task can take longer than thousands of expansions on a
 * small one, so a count of expansions between reads (it was 128) cannot bound the overrun; a clock
 * read (~50 ns) is noise beside either unit. */
static int past_deadline(PyObject *clock, double deadline) {
    PyObject *now = PyObject_CallNoArgs(clock);
    if (!now) return -1;
    double t = PyFloat_AsDouble(now);
    Py_DECREF(now);
    if (t == -1.0 && PyErr_Occurred()) return -1;
    return t > deadline;
}
/* goap.planning._search._EPS: cost comparisons are relative, so small costs are told apart */
#define REL_EPS 1e-12
#define LM_BYTES_MIN ((long long)16 << 20) /* default of lm_bytes_min (goap.planning._search._LM_BYTES_MIN) */

typedef struct {
    double key, h, g;
    long long cnt;
    int s;
} Entry;

static inline int entry_less(const Entry *a, const Entry *b) {
    if (a->key != b->key) return a->key < b->key;
    if (a->h != b->h) return a->h < b->h;
    return a->cnt < b->cnt;
}

typedef struct {
    /* task */
    Core *core;
    int nw, nops, nvars;
    uint64_t *pmask, *pval, *keep, *evl; /* nops * nw each; freed once compacted (pw_mask, ...) */
    double *cost;
    int *bvar, nbvar;     /* variables with a bucket table, ascending */
    int *bstart;          /* per bucketed variable: first slot of its table in bslot */
    int *bslot;           /* per (variable, value) slot: start of its operators in blist; +1 sentinel */
    int *blist, *freeops, nfree;
    uint64_t *gmask, *gval;
    int *pw_start, *pw_list; /* per operator: the words its precondition tests */
    int *ew_start, *ew_list; /* per operator: the words its effects write */
    /* beside pw_list and ew_list, their words' precondition mask and value, kept mask and effect
     * value: an operator's test reads a few adjacent words, not rows of nw words (a long chain's
     * rows are 1 KiB apart: each test was a cache miss) */
    uint64_t *pw_mask, *pw_val, *ew_keep, *ew_val;
    /* states */
    uint64_t *words;
    double *g, *hc; /* hc: NAN = not cached */
    int *parent, *pop;
    PyObject **perm;
    unsigned char *closed;
    Py_ssize_t *lmoff, *lmlen; /* lmoff -1: never evaluated */
    int n, cap;
    int *table;
    size_t tmask;
    /* landmarks of evaluated states, and scratch */
    char *arena, *inh;
    Py_ssize_t alen, acap, icap;
    Py_ssize_t lm_trigger, lm_min; /* landmark bytes at which the dead records are dropped, its floor */
    Entry *heap;
    Py_ssize_t hlen, hcap;
    uint64_t *tmp, *cur;
    unsigned char *bytes;
} Search;

static void search_free(Search *S) {
    if (S->perm)
        for (int i = 0; i < S->n; i++) Py_XDECREF(S->perm[i]);
    void *ptrs[] = {S->pmask, S->pval, S->keep, S->evl, S->cost, S->bvar, S->bstart, S->bslot, S->blist,
                    S->freeops, S->gmask, S->gval, S->pw_start, S->pw_list, S->ew_start, S->ew_list, S->pw_mask, S->pw_val, S->ew_keep, S->ew_val, S->words,
                    S->g, S->hc, S->parent, S->pop, S->perm, S->closed, S->lmoff, S->lmlen, S->table, S->arena, S->inh, S->heap, S->tmp, S->cur, S->bytes};
    for (size_t i = 0; i < sizeof(ptrs) / sizeof(ptrs[0]); i++) PyMem_Free(ptrs[i]);
}

static inline void set_bits(uint64_t *w, int shift, int width, uint64_t x) {
    for (int i = 0; i < width; i++)
        if ((x >> i) & 1) w[(shift + i) >> 6] |= (uint64_t)1 << ((shift + i) & 63);
}

static inline size_t hash_words(const uint64_t *w, int nw) {
    uint64_t h = 0x9E3779B97F4A7C15ULL;
    for (int i = 0; i < nw; i++) {
        h ^= w[i];
        h *= 0xBF58476D1CE4E5B9ULL;
        h ^= h >> 31;
    }
    return (size_t)h;
}

/* The state index of words w, or -1. */
static int lookup(const Search *S, const uint64_t *w) {
    size_t i = hash_words(w, S->nw) & S->tmask;
    for (;;) {
        int s = S->table[i];
        if (s < 0) return -1;
        if (memcmp(S->words + (size_t)s * S->nw, w, (size_t)S->nw * sizeof(uint64_t)) == 0) return s;
        i = (i + 1) & S->tmask;
    }
}

static int grow_table(Search *S) {
    size_t ncap = (S->tmask + 1) * 2;
    int *t = PyMem_Malloc(ncap * sizeof(int));
    if (!t) {
        PyErr_NoMemory();
        return -1;
    }
    for (size_t i = 0; i < ncap; i++) t[i] = -1;
    for (int s = 0; s < S->n; s++) {
        size_t i = hash_words(S->words + (size_t)s * S->nw, S->nw) & (ncap - 1);
        while (t[i] >= 0) i = (i + 1) & (ncap - 1);
        t[i] = s;
    }
    PyMem_Free(S->table);
    S->table = t;
    S->tmask = ncap - 1;
    return 0;
}

/* A new state with words w (not yet known): its index, or -1 with an exception set. */
static int add_state(Search *S, const uint64_t *w) {
    if (S->n == S->cap) {
        if (S->cap > INT32_MAX / 4) {
            PyErr_NoMemory();
            return -1;
        }
        int cap = S->cap ? 2 * S->cap : 1024;
        GROW(S->words, uint64_t, (size_t)cap * S->nw);
        GROW(S->g, double, cap);
        GROW(S->hc, double, cap);
        GROW(S->parent, int, cap);
        GROW(S->pop, int, cap);
        GROW(S->perm, PyObject *, cap);
        GROW(S->closed, unsigned char, cap);
        GROW(S->lmoff, Py_ssize_t, cap);
        GROW(S->lmlen, Py_ssize_t, cap);
        S->cap = cap;
    }
    if ((size_t)(S->n + 1) * 2 > S->tmask + 1 && grow_table(S) < 0) return -1;
    int s = S->n++;
    memcpy(S->words + (size_t)s * S->nw, w, (size_t)S->nw * sizeof(uint64_t));
    S->g[s] = 0.0;
    S->hc[s] = NAN;
    S->parent[s] = -1;
    S->pop[s] = -1;
    S->perm[s] = NULL;
    S->closed[s] = 0;
    S->lmoff[s] = -1;
    S->lmlen[s] = 0;
    size_t i = hash_words(w, S->nw) & S->tmask;
    while (S->table[i] >= 0) i = (i + 1) & S->tmask;
    S->table[i] = s;
    return s;
}

#define ENTRY_LESS(a, b) entry_less(&(a), &(b))

DEFINE_HEAP(Entry, ENTRY_LESS, entry_push, entry_pop)

static inline int heap_add(Search *S, Entry e) { return entry_push(&S->heap, &S->hlen, &S->hcap, e, 1024); }

static inline Entry heap_take(Search *S) { return entry_pop(S->heap, &S->hlen); }

/* ---------------------------------------------------------------- states <-> Python ints */

PyObject *state_to_int(const uint64_t *w, int nw, unsigned char *buf) {
    if (nw == 1) return PyLong_FromUnsignedLongLong(w[0]);
    for (int k = 0; k < nw; k++)
        for (int b = 0; b < 8; b++) buf[8 * k + b] = (unsigned char)(w[k] >> (8 * b));
#if PY_VERSION_HEX >= 0x030D0000
    return PyLong_FromUnsignedNativeBytes(buf, (size_t)nw * 8, Py_ASNATIVEBYTES_LITTLE_ENDIAN);
#else
    return _PyLong_FromByteArray(buf, (size_t)nw * 8, 1, 0);
#endif
}

int state_from_int(PyObject *v, uint64_t *w, int nw, unsigned char *buf, const char *what) {
    PyObject *exact = PyNumber_Index(v); /* an exact int (a copy for a subclass): no user code runs */
    if (!exact) return -1;
    int rc = 0;
    if (nw == 1) {
        unsigned long long x = PyLong_AsUnsignedLongLong(exact);
        if (x == (unsigned long long)-1 && PyErr_Occurred()) rc = -1; /* negative or too large */
        w[0] = x;
    } else {
#if PY_VERSION_HEX >= 0x030D0000
        Py_ssize_t need = PyLong_AsNativeBytes(exact, buf, (Py_ssize_t)nw * 8,
                                               Py_ASNATIVEBYTES_LITTLE_ENDIAN | Py_ASNATIVEBYTES_UNSIGNED_BUFFER |
                                                   Py_ASNATIVEBYTES_REJECT_NEGATIVE);
        if (need < 0)
            rc = -1;
        else if (need > (Py_ssize_t)nw * 8) {
            PyErr_SetString(PyExc_OverflowError, "state too large");
            rc = -1;
        }
#else
        rc = _PyLong_AsByteArray((PyLongObject *)exact, buf, (size_t)nw * 8, 1, 0) < 0 ? -1 : 0;
#endif
        for (int k = 0; rc == 0 && k < nw; k++) {
            uint64_t x = 0;
            for (int b = 0; b < 8; b++) x |= (uint64_t)buf[8 * k + b] << (8 * b);
            w[k] = x;
        }
    }
    Py_DECREF(exact);
    if (rc < 0) {
        if (!PyErr_ExceptionMatches(PyExc_OverflowError) && !PyErr_ExceptionMatches(PyExc_ValueError)) return -1;
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "%s: a state outside the task's encoding", what);
    }
    return rc;
}

/* canon(state) for the words in S->tmp: the representative replaces them; *perm gets a new
 * reference to the permutation, or NULL for None. */
static int call_canon(Search *S, PyObject *canon, PyObject **perm) {
    *perm = NULL;
    if (Py_IS_TYPE(canon, &CanonType) && ((CanonObject *)canon)->ready && ((CanonObject *)canon)->nw == S->nw &&
        ((CanonObject *)canon)->nv == S->nvars)
        return canon_words((CanonObject *)canon, S->tmp, perm); /* no Python ints in between */
    PyObject *st = state_to_int(S->tmp, S->nw, S->bytes);
    if (!st) return -1;
    PyObject *r = PyObject_CallOneArg(canon, st);
    Py_DECREF(st);
    if (!r) return -1;
    if (!PyTuple_Check(r) || PyTuple_GET_SIZE(r) != 2) {
        Py_DECREF(r);
        PyErr_SetString(PyExc_TypeError, "canon must return (int state, permutation)");
        return -1;
    }
    PyObject *rep = PyTuple_GET_ITEM(r, 0);
    if (!PyLong_Check(rep)) {
        Py_DECREF(r);
        PyErr_SetString(PyExc_TypeError, "canon must return (int state, permutation)");
        return -1;
    }
    if (state_from_int(rep, S->tmp, S->nw, S->bytes, "canon returned") < 0) {
        Py_DECREF(r);
        return -1;
    }
    PyObject *p = PyTuple_GET_ITEM(r, 1);
    if (p != Py_None) {
        Py_INCREF(p);
        *perm = p;
    }
    Py_DECREF(r);
    return 0;
}

/* ---------------------------------------------------------------- heuristic */

static int off_cmp(const void *x, const void *y) {
    const Py_ssize_t *a = (const Py_ssize_t *)x, *b = (const Py_ssize_t *)y;
    return a[0] < b[0] ? -1 : (a[0] > b[0] ? 1 : 0);
}

/* goap.planning._search._drop_landmarks: the landmarks of a state are kept while the state is open (its
 * children will inherit them) or one of its children, linked to it without a permutation, is not
 * evaluated yet; the others are dropped and the arena compacted in place. A closed state reopened
 * later then evaluates its children afresh (admissible all the same). Without this, the arena
 * holds every evaluated state's landmarks: a chain of n actions stores n^2 / 2 of them. */
static int drop_landmarks(Search *S) {
    unsigned char *live = PyMem_Calloc((size_t)S->n + 1, 1);
    if (!live) {
        PyErr_NoMemory();
        return -1;
    }
    Py_ssize_t nlive = 0;
    for (int s = 0; s < S->n; s++) {
        if (!S->closed[s]) live[s] = 1;
        int p = S->parent[s];
        if (p >= 0 && isnan(S->hc[s]) && S->perm[s] == NULL) live[p] = 1;
    }
    for (int s = 0; s < S->n; s++) {
        if (S->lmoff[s] < 0) continue;
        if (live[s])
            nlive++;
        else {
            S->lmoff[s] = -1;
            S->lmlen[s] = 0;
        }
    }
    /* (offset, state) pairs of the kept records, moved down in arena order */
    Py_ssize_t *order = PyMem_Malloc((size_t)(nlive + 1) * 2 * sizeof(Py_ssize_t));
    if (!order) {
        PyMem_Free(live);
        PyErr_NoMemory();
        return -1;
    }
    Py_ssize_t k = 0;
    for (int s = 0; s < S->n; s++)
        if (S->lmoff[s] >= 0) {
            order[2 * k] = S->lmoff[s];
            order[2 * k + 1] = s;
            k++;
        }
    qsort(order, (size_t)k, 2 * sizeof(Py_ssize_t), off_cmp);
    Py_ssize_t out = 0;
    for (Py_ssize_t i = 0; i < k; i++) {
        int s = (int)order[2 * i + 1];
        if (S->lmlen[s]) memmove(S->arena + out, S->arena + S->lmoff[s], (size_t)S->lmlen[s]);
        S->lmoff[s] = out;
        out += S->lmlen[s];
    }
    S->alen = out;
    S->lm_trigger = out > S->lm_min / 2 ? 2 * out : S->lm_min;
    PyMem_Free(order);
    PyMem_Free(live);
    return 0;
}

/* LM-cut of state s from inherited landmarks (S->inh[0..ilen)); stores h in *hv and the landmarks
 * in the arena (s's own record). */
static int evaluate(Search *S, int s, Py_ssize_t ilen, double *hv) {
    Core *c = S->core;
    const uint64_t *w = S->words + (size_t)s * S->nw;
    int n = c->nvars;
    for (int v = 0; v < n; v++) {
        uint64_t x = state_bits(w, c->var_shift[v], c->var_width[v]);
        long long f = (long long)c->var_base[v] + (long long)x;
        int lim = v + 1 < n ? c->var_base[v + 1] : c->top;
        if (f >= lim) {
            PyErr_SetString(PyExc_ValueError, "a state holds a value outside a domain");
            return -1;
        }
        c->init[v] = (int)f;
    }
    c->init[n] = c->top;
    if (lmcut_run(c, n + 1, S->inh, ilen, hv) < 0) return -1;
    Py_ssize_t len = c->out_len;
    if (S->alen + len > S->lm_trigger && drop_landmarks(S) < 0) return -1;
    if (len > PY_SSIZE_T_MAX / 4 - S->alen) {
        PyErr_NoMemory();
        return -1;
    }
    if (S->alen + len > S->acap) {
        Py_ssize_t cap = S->acap ? S->acap : 4096;
        while (cap < S->alen + len) cap *= 2;
        GROW(S->arena, char, cap);
        S->acap = cap;
    }
    if (len) memcpy(S->arena + S->alen, c->out, (size_t)len);
    S->lmoff[s] = S->alen;
    S->lmlen[s] = len;
    S->alen += len;
    return 0;
}

/* The landmarks of state p without those holding compiled operator op, into S->inh; their length. */
static Py_ssize_t inherit(Search *S, int p, int op) {
    Py_ssize_t len = S->lmlen[p];
    if (len > S->icap) {
        Py_ssize_t cap = S->icap ? S->icap : 256;
        while (cap < len) cap *= 2;
        GROW(S->inh, char, cap);
        S->icap = cap;
    }
    const char *lm = S->arena + S->lmoff[p];
    int r = S->core->relaxed_of[op];
    if (r < 0) {
        if (len) memcpy(S->inh, lm, (size_t)len);
        return len;
    }
    return lm_without(lm, len, r, S->inh); /* the arena holds evaluate()'s records: never -1 */
}

/* ---------------------------------------------------------------- set-up */

static int read_facts(PyObject *obj, PyObject *name, int top, int **out, int *count) {
    PyObject *v = PyObject_GetAttr(obj, name);
    if (!v) return -1;
    const char *attr = PyUnicode_AsUTF8(name);
    int r = attr ? int_array(v, "operator", attr, 0, top, out, count) : -1;
    Py_DECREF(v);
    return r;
}

/* fact -> variable */
static int fact_var(const Core *c, int f) {
    int lo = 0, hi = c->nvars - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (c->var_base[mid] <= f)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* Sets the bits of fact f (variable mask into mask, value into val). */
static void put_fact(const Core *c, int f, uint64_t *mask, uint64_t *val) {
    int v = fact_var(c, f);
    int w = c->var_width[v];
    set_bits(mask, c->var_shift[v], w, w ? (((uint64_t)1 << w) - 1) : 0);
    set_bits(val, c->var_shift[v], w, (uint64_t)(f - c->var_base[v]));
}

static int setup(Search *S, PyObject *ops, PyObject *buckets, PyObject *goal) {
    Core *c = S->core;
    if (c->numeric) {
        PyErr_SetString(PyExc_ValueError, "search: numeric tasks are searched in Python");
        return -1;
    }
    if (c->nvars < 1 || c->var_base[0] != 0) {
        PyErr_SetString(PyExc_ValueError, "search: the task has no variables");
        return -1;
    }
    S->nvars = c->nvars;
    S->nw = c->max_shift / 64 + 1;
    PyObject *opt = PySequence_Tuple(ops);
    if (!opt) return -1;
    Py_ssize_t no = PyTuple_GET_SIZE(opt);
    if (no != c->ncompiled) {
        Py_DECREF(opt);
        PyErr_SetString(PyExc_ValueError, "search: one operator per compiled operator of the Core");
        return -1;
    }
    S->nops = (int)no;
    size_t nw = (size_t)S->nw, n = (size_t)no + 1;
    S->pmask = PyMem_Calloc(n * nw, sizeof(uint64_t));
    S->pval = PyMem_Calloc(n * nw, sizeof(uint64_t));
    S->keep = PyMem_Calloc(n * nw, sizeof(uint64_t));
    S->evl = PyMem_Calloc(n * nw, sizeof(uint64_t));
    S->cost = PyMem_Calloc(n, sizeof(double));
    S->gmask = PyMem_Calloc(nw, sizeof(uint64_t));
    S->gval = PyMem_Calloc(nw, sizeof(uint64_t));
    S->tmp = PyMem_Calloc(nw, sizeof(uint64_t));
    S->cur = PyMem_Calloc(nw, sizeof(uint64_t));
    S->bytes = PyMem_Calloc(nw * 8, 1);
    if (!S->pmask || !S->pval || !S->keep || !S->evl || !S->cost || !S->gmask || !S->gval || !S->tmp ||
        !S->cur || !S->bytes) {
        Py_DECREF(opt);
        PyErr_NoMemory();
        return -1;
    }
    PyObject *cost_name = PyUnicode_InternFromString("cost");
    PyObject *pre_name = PyUnicode_InternFromString("pre");
    PyObject *eff_name = PyUnicode_InternFromString("eff");
    if (!cost_name || !pre_name || !eff_name) {
        Py_XDECREF(cost_name);
        Py_XDECREF(pre_name);
        Py_XDECREF(eff_name);
        Py_DECREF(opt);
        return -1;
    }
    for (int o = 0; o < S->nops; o++) {
        PyObject *op = PyTuple_GET_ITEM(opt, o);
        int *pre = NULL, *eff = NULL, npre = 0, neff = 0;
        if (read_facts(op, pre_name, c->top, &pre, &npre) < 0 || read_facts(op, eff_name, c->top, &eff, &neff) < 0) {
            PyMem_Free(pre);
            PyMem_Free(eff);
            Py_DECREF(cost_name);
            Py_DECREF(pre_name);
            Py_DECREF(eff_name);
            Py_DECREF(opt);
            return -1;
        }
        uint64_t *em = S->tmp;
        memset(em, 0, nw * sizeof(uint64_t));
        for (int i = 0; i < npre; i++) put_fact(c, pre[i], S->pmask + o * nw, S->pval + o * nw);
        for (int i = 0; i < neff; i++) put_fact(c, eff[i], em, S->evl + o * nw);
        for (size_t k = 0; k < nw; k++) S->keep[o * nw + k] = ~em[k];
        PyMem_Free(pre);
        PyMem_Free(eff);
        PyObject *cv = PyObject_GetAttr(op, cost_name);
        double cst = cv ? PyFloat_AsDouble(cv) : -1.0;
        Py_XDECREF(cv);
        if (cst == -1.0 && PyErr_Occurred()) {
            Py_DECREF(cost_name);
            Py_DECREF(pre_name);
            Py_DECREF(eff_name);
            Py_DECREF(opt);
            return -1;
        }
        if (!(cst >= 0.0) || !isfinite(cst)) {
            Py_DECREF(cost_name);
            Py_DECREF(pre_name);
            Py_DECREF(eff_name);
            Py_DECREF(opt);
            PyErr_SetString(PyExc_ValueError, "search: operator costs must be finite and >= 0");
            return -1;
        }
        S->cost[o] = cst;
    }
    Py_DECREF(cost_name);
    Py_DECREF(pre_name);
    Py_DECREF(eff_name);
    Py_DECREF(opt);
    /* the words each operator tests and writes: a state of many words (a long chain) is then
     * checked and compared in a few word operations per operator instead of nw */
    S->pw_start = PyMem_Calloc(n, sizeof(int));
    S->ew_start = PyMem_Calloc(n, sizeof(int));
    if (!S->pw_start || !S->ew_start) {
        PyErr_NoMemory();
        return -1;
    }
    long long npw = 0, new_ = 0;
    for (int o = 0; o < S->nops; o++)
        for (size_t k = 0; k < nw; k++) {
            npw += S->pmask[o * nw + k] != 0;
            new_ += S->keep[o * nw + k] != ~(uint64_t)0;
        }
    if (npw > INT32_MAX || new_ > INT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "search: task too large");
        return -1;
    }
    S->pw_list = PyMem_Calloc((size_t)npw + 1, sizeof(int));
    S->ew_list = PyMem_Calloc((size_t)new_ + 1, sizeof(int));
    S->pw_mask = PyMem_Calloc((size_t)npw + 1, sizeof(uint64_t));
    S->pw_val = PyMem_Calloc((size_t)npw + 1, sizeof(uint64_t));
    S->ew_keep = PyMem_Calloc((size_t)new_ + 1, sizeof(uint64_t));
    S->ew_val = PyMem_Calloc((size_t)new_ + 1, sizeof(uint64_t));
    if (!S->pw_list || !S->ew_list || !S->pw_mask || !S->pw_val || !S->ew_keep || !S->ew_val) {
        PyErr_NoMemory();
        return -1;
    }
    int ip = 0, ie = 0;
    for (int o = 0; o < S->nops; o++) {
        S->pw_start[o] = ip;
        S->ew_start[o] = ie;
        for (size_t k = 0; k < nw; k++) {
            size_t at = (size_t)o * nw + k;
            if (S->pmask[at] != 0) {
                S->pw_mask[ip] = S->pmask[at];
                S->pw_val[ip] = S->pval[at];
                S->pw_list[ip++] = (int)k;
            }
            if (S->keep[at] != ~(uint64_t)0) {
                S->ew_keep[ie] = S->keep[at];
                S->ew_val[ie] = S->evl[at];
                S->ew_list[ie++] = (int)k;
            }
        }
    }
    S->pw_start[S->nops] = ip;
    S->ew_start[S->nops] = ie;
    /* the rows are not read again: their nops * nw words each (50 MB for a 10,000-action chain) go */
    uint64_t **rows[] = {&S->pmask, &S->pval, &S->keep, &S->evl};
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        PyMem_Free(*rows[i]);
        *rows[i] = NULL;
    }
    /* successor index: per bucketed variable (ascending), per value, its operators in index order */
    PyObject *bt = tuple_of_len(buckets, no, "search: one bucket per operator");
    if (!bt) return -1;
    int *bfact = PyMem_Calloc(n, sizeof(int));
    int *varslots = PyMem_Calloc((size_t)S->nvars + 1, sizeof(int)); /* per variable: its table size */
    if (!bfact || !varslots) {
        PyMem_Free(bfact);
        PyMem_Free(varslots);
        Py_DECREF(bt);
        PyErr_NoMemory();
        return -1;
    }
    int ok = 1;
    for (int o = 0; o < S->nops && ok; o++) {
        long f = PyLong_AsLong(PyTuple_GET_ITEM(bt, o));
        if (f == -1 && PyErr_Occurred()) ok = 0;
        else if (f < -1 || f >= c->top) {
            PyErr_SetString(PyExc_ValueError, "search: bucket fact out of range");
            ok = 0;
        } else
            bfact[o] = (int)f;
    }
    Py_DECREF(bt);
    S->freeops = PyMem_Calloc(n, sizeof(int));
    S->bvar = PyMem_Calloc((size_t)S->nvars + 1, sizeof(int));
    S->bstart = PyMem_Calloc((size_t)S->nvars + 1, sizeof(int));
    if (ok && (!S->freeops || !S->bvar || !S->bstart)) {
        PyErr_NoMemory();
        ok = 0;
    }
    long long nslots = 0;
    if (ok) {
        for (int o = 0; o < S->nops; o++)
            if (bfact[o] >= 0) varslots[fact_var(c, bfact[o])] = 1;
        for (int v = 0; v < S->nvars; v++)
            if (varslots[v]) {
                S->bvar[S->nbvar] = v;
                S->bstart[S->nbvar] = (int)nslots;
                S->nbvar++;
                nslots += (long long)1 << c->var_width[v];
                if (nslots > INT32_MAX / 2) {
                    PyErr_SetString(PyExc_ValueError, "search: value domains too large");
                    ok = 0;
                    break;
                }
            }
    }
    if (ok) {
        S->bslot = PyMem_Calloc((size_t)nslots + 1, sizeof(int));
        S->blist = PyMem_Calloc(n, sizeof(int));
        if (!S->bslot || !S->blist) {
            PyErr_NoMemory();
            ok = 0;
        }
    }
    if (ok) {
        /* slot of each bucketed variable in bvar order: varslots[v] becomes its position */
        for (int k = 0; k < S->nbvar; k++) varslots[S->bvar[k]] = k;
        int *count = S->bslot; /* counting sort: sizes first, then prefix sums */
        for (int o = 0; o < S->nops; o++) {
            if (bfact[o] < 0) {
                S->freeops[S->nfree++] = o;
                continue;
            }
            int v = fact_var(c, bfact[o]);
            count[S->bstart[varslots[v]] + (bfact[o] - c->var_base[v]) + 1]++;
        }
        for (long long i = 0; i < nslots; i++) count[i + 1] += count[i];
        int *fill = PyMem_Calloc((size_t)nslots + 1, sizeof(int));
        if (!fill) {
            PyErr_NoMemory();
            ok = 0;
        } else {
            for (int o = 0; o < S->nops; o++) {
                if (bfact[o] < 0) continue;
                int v = fact_var(c, bfact[o]);
                int slot = S->bstart[varslots[v]] + (bfact[o] - c->var_base[v]);
                S->blist[S->bslot[slot] + fill[slot]++] = o;
            }
            PyMem_Free(fill);
        }
    }
    PyMem_Free(bfact);
    PyMem_Free(varslots);
    if (!ok) return -1;
    /* goal */
    PyObject *gt = PySequence_Tuple(goal);
    if (!gt) return -1;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(gt); i++) {
        long f = PyLong_AsLong(PyTuple_GET_ITEM(gt, i));
        if (f == -1 && PyErr_Occurred()) {
            Py_DECREF(gt);
            return -1;
        }
        if (f < 0 || f >= c->top) {
            Py_DECREF(gt);
            PyErr_SetString(PyExc_ValueError, "search: goal fact out of range");
            return -1;
        }
        put_fact(c, (int)f, S->gmask, S->gval);
    }
    Py_DECREF(gt);
    S->table = PyMem_Malloc(1024 * sizeof(int));
    if (!S->table) {
        PyErr_NoMemory();
        return -1;
    }
    for (int i = 0; i < 1024; i++) S->table[i] = -1;
    S->tmask = 1023;
    return 0;
}

/* ---------------------------------------------------------------- the search */

/* Bytes the search holds in its per-state tables, hash table, open list and landmarks (what
 * max_bytes bounds; the task and the heuristic's own arrays are fixed before the search starts). */
static size_t search_bytes(const Search *S) {
    size_t per_state = (size_t)S->nw * sizeof(uint64_t) + 2 * sizeof(double) + 2 * sizeof(int) + sizeof(PyObject *) +
                       1 + 2 * sizeof(Py_ssize_t);
    return (size_t)S->n * per_state + (S->tmask + 1) * sizeof(int) + (size_t)S->hlen * sizeof(Entry) +
           (size_t)S->alen;
}

static inline int is_goal(const Search *S, const uint64_t *w) {
    for (int k = 0; k < S->nw; k++)
        if ((w[k] & S->gmask[k]) != S->gval[k]) return 0;
    return 1;
}

/* The restart of goap.planning._search.best_first at the symmetry switch: every state forgets its path (g
 * becomes INFINITY: not reached, parent none, not closed) and keeps its heuristic value and
 * landmarks; each representative of an evaluated state gets the larger of their values
 * (goap.planning._search._carry_h); the open list empties. The caller pushes the start again. */
static int restart(Search *S, PyObject *canon) {
    S->hlen = 0;
    for (int s = 0; s < S->n; s++) {
        S->g[s] = INFINITY;
        S->parent[s] = -1;
        S->pop[s] = -1;
        Py_CLEAR(S->perm[s]);
        S->closed[s] = 0;
    }
    /* carried values are read from a copy taken before any is raised, so the outcome does not
     * depend on the order states are visited in (the Python loop visits them in another order) */
    int n0 = S->n;
    double *before = PyMem_Malloc((size_t)(n0 ? n0 : 1) * sizeof(double));
    if (!before) {
        PyErr_NoMemory();
        return -1;
    }
    memcpy(before, S->hc, (size_t)n0 * sizeof(double));
    int rc = 0;
    for (int s = 0; s < n0; s++) {
        double hs = before[s];
        if (isnan(hs)) continue;
        memcpy(S->tmp, S->words + (size_t)s * S->nw, (size_t)S->nw * sizeof(uint64_t));
        PyObject *perm;
        if (call_canon(S, canon, &perm) < 0) {
            rc = -1;
            break;
        }
        Py_XDECREF(perm);
        if (memcmp(S->tmp, S->words + (size_t)s * S->nw, (size_t)S->nw * sizeof(uint64_t)) == 0) continue;
        int rep = lookup(S, S->tmp);
        if (rep < 0) {
            rep = add_state(S, S->tmp);
            if (rep < 0) {
                rc = -1;
                break;
            }
            S->g[rep] = INFINITY;
        }
        if (isnan(S->hc[rep]) || hs > S->hc[rep]) S->hc[rep] = hs;
    }
    PyMem_Free(before);
    return rc;
}

static PyObject *path_of(Search *S, int s) {
    int len = 0;
    for (int x = s; S->parent[x] >= 0; x = S->parent[x]) len++;
    PyObject *out = PyList_New(len);
    if (!out) return NULL;
    int i = len;
    for (int x = s; S->parent[x] >= 0; x = S->parent[x]) {
        PyObject *perm = S->perm[x] ? S->perm[x] : Py_None;
        PyObject *item = Py_BuildValue("(iO)", S->pop[x], perm);
        if (!item) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, --i, item);
    }
    return out;
}

PyObject *Core_search(Core *c, PyObject *const *args, Py_ssize_t nargs) {
    if (!c->ready) {
        PyErr_SetString(PyExc_RuntimeError, "Core is not initialised");
        return NULL;
    }
    if (nargs < 11 || nargs > 13) {
        PyErr_SetString(PyExc_TypeError, "search(ops, buckets, goal, weight, greedy, limit, deadline, clock, "
                                         "canon, detect, switch_at[, max_bytes[, lm_bytes_min]]) takes 11 to 13 "
                                         "arguments");
        return NULL;
    }
    long long max_bytes = -1, lm_min = LM_BYTES_MIN;
    if (nargs >= 12) {
        max_bytes = PyLong_AsLongLong(args[11]);
        if (max_bytes == -1 && PyErr_Occurred()) return NULL;
    }
    if (nargs == 13) {
        lm_min = PyLong_AsLongLong(args[12]);
        if (lm_min == -1 && PyErr_Occurred()) return NULL;
        if (lm_min < 0) {
            PyErr_SetString(PyExc_ValueError, "search: lm_bytes_min must be >= 0");
            return NULL;
        }
    }
    double weight = PyFloat_AsDouble(args[3]);
    if (weight == -1.0 && PyErr_Occurred()) return NULL;
    int greedy = PyObject_IsTrue(args[4]);
    if (greedy < 0) return NULL;
    long long limit = PyLong_AsLongLong(args[5]);
    if (limit == -1 && PyErr_Occurred()) return NULL;
    int has_deadline = args[6] != Py_None;
    double deadline = has_deadline ? PyFloat_AsDouble(args[6]) : 0.0;
    if (has_deadline && deadline == -1.0 && PyErr_Occurred()) return NULL;
    PyObject *clock = args[7];
    if (has_deadline && !PyCallable_Check(clock)) {
        PyErr_SetString(PyExc_TypeError, "search: a deadline needs a callable clock");
        return NULL;
    }
    PyObject *canon = args[8] == Py_None ? NULL : args[8];
    PyObject *detect = args[9] == Py_None ? NULL : args[9];
    long long switch_at = PyLong_AsLongLong(args[10]);
    if (switch_at == -1 && PyErr_Occurred()) return NULL;
    if (!(weight >= 1.0) || !isfinite(weight)) {
        PyErr_SetString(PyExc_ValueError, "search: weight must be a finite number >= 1");
        return NULL;
    }
    if (detect == NULL) switch_at = -1;
    Search S;
    memset(&S, 0, sizeof S);
    S.core = c;
    S.lm_min = (Py_ssize_t)lm_min;
    S.lm_trigger = S.lm_min;
    Py_INCREF(c); /* the callbacks cannot free it under us */
    Py_XINCREF(canon);
    PyObject *result = NULL, *path = NULL;
    const char *status = "no_plan";
    double cost = 0.0, h0 = 0.0;
    long long expanded = 0, generated = 0, evaluated = 0, reopened = 0, counter = 0;
    if (setup(&S, args[0], args[1], args[2]) < 0) goto done;
    size_t nw = (size_t)S.nw;
    /* the start: packed initial state = every variable at value 0 */
    memset(S.tmp, 0, nw * sizeof(uint64_t));
    int start = add_state(&S, S.tmp);
    if (start < 0) goto done;
    if (evaluate(&S, start, 0, &h0) < 0) goto done;
    evaluated = 1;
    if (h0 == INFINITY) goto finish;
    S.hc[start] = h0;
    Entry e0 = {greedy ? h0 : weight * h0, h0, 0.0, 0, start};
    if (heap_add(&S, e0) < 0) goto done;
    while (S.hlen) {
        Entry e = heap_take(&S);
        int s = e.s;
        double g = e.g;
        if (g > S.g[s] + REL_EPS * S.g[s]) continue;
        if (is_goal(&S, S.words + (size_t)s * nw)) {
            path = path_of(&S, s);
            if (!path) goto done;
            status = "found";
            cost = g;
            goto finish;
        }
        double hv = S.hc[s];
        if (isnan(hv)) {
            Py_ssize_t ilen = 0;
            int p = S.parent[s];
            if (p >= 0 && S.perm[s] == NULL && S.lmoff[p] >= 0 && S.lmlen[p] > 0) {
                ilen = inherit(&S, p, S.pop[s]);
                if (ilen < 0) goto done;
            }
            if (evaluate(&S, s, ilen, &hv) < 0) goto done;
            evaluated++;
            if (has_deadline) {
                int late = past_deadline(clock, deadline);
                if (late < 0) goto done;
                if (late) {
                    status = "budget_exhausted";
                    goto finish;
                }
            }
            if (hv < e.h) hv = e.h; /* pathmax: the inherited bound is admissible too */
            S.hc[s] = hv;
            if (hv == INFINITY) continue;
            double nkey = greedy ? hv : g + weight * hv;
            if (nkey > e.key + REL_EPS * fabs(e.key)) {
                counter++;
                Entry r = {nkey, hv, g, counter, s};
                if (heap_add(&S, r) < 0) goto done;
                continue;
            }
        } else if (hv == INFINITY)
            continue;
        if (expanded == switch_at) {
            switch_at = -1;
            PyObject *found = PyObject_CallNoArgs(detect);
            if (!found) goto done;
            Py_CLEAR(canon);
            if (found != Py_None) {
                canon = found;
                if (restart(&S, canon) < 0) goto done;
                S.g[start] = 0.0;
                double hs = S.hc[start];
                counter++;
                Entry r = {greedy ? hs : weight * hs, hs, 0.0, counter, start};
                if (heap_add(&S, r) < 0) goto done;
                continue;
            } else
                Py_DECREF(found);
        }
        if (S.closed[s]) reopened++;
        S.closed[s] = 1;
        expanded++;
        if (expanded == limit || (max_bytes >= 0 && (long long)search_bytes(&S) > max_bytes)) {
            status = "budget_exhausted";
            goto finish;
        }
        if (has_deadline) {
            int late = past_deadline(clock, deadline);
            if (late < 0) goto done;
            if (late) {
                status = "budget_exhausted";
                goto finish;
            }
        }
        /* successors, in the order of goap.planning._task.Task._expand_fast; s's words are copied first
         * (adding a state may move the pool) */
        uint64_t *sw = S.cur;
        memcpy(sw, S.words + (size_t)s * nw, nw * sizeof(uint64_t));
        for (int k = 0; k <= S.nbvar; k++) {
            const int *lo, *hi;
            if (k < S.nbvar) {
                int v = S.bvar[k];
                int slot = S.bstart[k] + (int)state_bits(sw, c->var_shift[v], c->var_width[v]);
                lo = S.blist + S.bslot[slot];
                hi = S.blist + S.bslot[slot + 1];
            } else {
                lo = S.freeops;
                hi = S.freeops + S.nfree;
            }
            for (const int *it = lo; it < hi; it++) {
                int o = *it;
                int app = 1;
                for (int j = S.pw_start[o], jend = S.pw_start[o + 1]; j < jend; j++)
                    if ((sw[S.pw_list[j]] & S.pw_mask[j]) != S.pw_val[j]) {
                        app = 0;
                        break;
                    }
                if (!app) continue;
                /* effects that already hold give the same state again, never cheaper: pruned */
                int same = 1;
                int e0 = S.ew_start[o], eend = S.ew_start[o + 1];
                for (int j = e0; j < eend; j++) {
                    uint64_t w = sw[S.ew_list[j]];
                    if (((w & S.ew_keep[j]) | S.ew_val[j]) != w) {
                        same = 0;
                        break;
                    }
                }
                if (same) continue;
                memcpy(S.tmp, sw, nw * sizeof(uint64_t));
                for (int j = e0; j < eend; j++) {
                    int q = S.ew_list[j];
                    S.tmp[q] = (sw[q] & S.ew_keep[j]) | S.ew_val[j];
                }
                generated++;
                PyObject *perm = NULL;
                if (canon && call_canon(&S, canon, &perm) < 0) goto done;
                double co = S.cost[o];
                double ng = g + co;
                int child = lookup(&S, S.tmp);
                if (child >= 0 && ng >= S.g[child] - REL_EPS * S.g[child]) {
                    Py_XDECREF(perm);
                    continue;
                }
                if (child < 0) {
                    child = add_state(&S, S.tmp);
                    if (child < 0) {
                        Py_XDECREF(perm);
                        goto done;
                    }
                }
                S.g[child] = ng;
                S.parent[child] = s;
                S.pop[child] = o;
                Py_XSETREF(S.perm[child], perm);
                double hc = S.hc[child];
                if (isnan(hc)) {
                    hc = hv - co;
                    if (hc < 0.0) hc = 0.0;
                } else if (hc == INFINITY)
                    continue;
                counter++;
                Entry r = {greedy ? hc : ng + weight * hc, hc, ng, counter, child};
                if (heap_add(&S, r) < 0) goto done;
            }
        }
    }
finish:
    if (!path) {
        path = PyList_New(0);
        if (!path) goto done;
    }
    result = Py_BuildValue("(sOdLLLLd)", status, path, cost, expanded, generated, evaluated, reopened, h0);
done:
    Py_XDECREF(path);
    Py_XDECREF(canon);
    search_free(&S);
    Py_DECREF(c);
    return result;
}
