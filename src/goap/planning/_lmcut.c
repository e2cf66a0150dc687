/* Optional C accelerator of goap.planning.heuristics.lmcut: the per-state LM-cut computation.
 *
 * It mirrors the pure-Python implementation step for step (same h^max tie-breaking: Dial buckets
 * walked in insertion order for whole-number costs, a (value, fact) binary heap otherwise; same
 * incremental h^max update after each cut), so both give the same h value and the same landmarks
 * on every state. Landmarks travel as bytes: records of (double m, int32 n, int32 op[n]).
 *
 * Every input is checked (operator and fact ids in range, well-formed landmark bytes); bad input
 * raises ValueError/TypeError, never a crash.
 *
 * Threads and re-entrancy: the methods never release the GIL, and no Python code can run while the
 * scratch arrays of a Core hold live data (sequences given to __init__ are copied into tuples
 * before their items are converted; a packed state is read as an exact int, so no user-defined
 * to_bytes/__index__ runs; the only objects allocated mid-evaluation are not GC-tracked). So one
 * Core may be shared by threads, and a finalizer that calls back into the same Core is harmless.
 * __init__ runs once: a second or re-entrant call raises RuntimeError, and a failed __init__ frees
 * what it built (the methods then raise RuntimeError until __init__ succeeds).
 *
 * The module uses single-phase init with a static type and no module state; it is therefore
 * refused by sub-interpreters that require multi-phase init (Python 3.12+), which is safe.
 */
#include "_lmcut.h"

static void core_free_arrays(Core *c) {
    void *ptrs[] = {c->pre_start, c->pre_list, c->eff_start, c->eff_list, c->preof_start, c->preof_list,
                    c->ach_start, c->ach_list, c->pre_count, c->base_cost, c->var_base, c->var_shift,
                    c->var_width, c->relaxed_of, c->h, c->cost, c->unsat, c->supp, c->stack, c->cut,
                    c->init, c->done, c->zone, c->seen, c->heap, c->bhead, c->btail, c->node_fact,
                    c->node_next, c->out, c->out2};
    for (size_t i = 0; i < sizeof(ptrs) / sizeof(ptrs[0]); i++) PyMem_Free(ptrs[i]);
}

/* Frees every array and zeroes every field after the object header (back to the state of __new__). */
static void core_clear(Core *c) {
    core_free_arrays(c);
    memset((char *)c + offsetof(Core, ready), 0, sizeof(Core) - offsetof(Core, ready));
}

static void Core_dealloc(Core *self) {
    core_free_arrays(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* ---------------------------------------------------------------- helpers */

static inline int item_less(HeapItem a, HeapItem b) { return a.d < b.d || (a.d == b.d && a.f < b.f); }

DEFINE_HEAP(HeapItem, item_less, item_push, item_pop)

static inline int heap_push(Core *c, double d, int f) {
    HeapItem x = {d, f};
    return item_push(&c->heap, &c->heap_len, &c->heap_cap, x, 64);
}

static inline HeapItem heap_pop(Core *c) { return item_pop(c->heap, &c->heap_len); }

static int bucket_push(Core *c, long long d, int f) {
    if (d >= c->nbuckets) {
        long long nb = c->nbuckets ? c->nbuckets : 16;
        while (nb <= d && nb <= INT32_MAX) nb *= 2;
        if (nb > INT32_MAX) {
            PyErr_SetString(PyExc_ValueError, "h^max value too large for the bucket queue");
            return -1;
        }
        GROW(c->bhead, int, nb);
        GROW(c->btail, int, nb);
        for (long long i = c->nbuckets; i < nb; i++) c->bhead[i] = c->btail[i] = -1;
        c->nbuckets = (int)nb;
    }
    if (c->nnodes == c->node_cap) {
        if (c->node_cap > INT32_MAX / 2) {
            PyErr_NoMemory();
            return -1;
        }
        int cap = c->node_cap ? 2 * c->node_cap : 256;
        GROW(c->node_fact, int, cap);
        GROW(c->node_next, int, cap);
        c->node_cap = cap;
    }
    int node = c->nnodes++;
    c->node_fact[node] = f;
    c->node_next[node] = -1;
    if (c->btail[d] < 0)
        c->bhead[d] = node;
    else
        c->node_next[c->btail[d]] = node;
    c->btail[d] = node;
    return 0;
}

/* The rank that breaks ties when an operator whose supporter fell gets a new one (the higher
 * wins): the fact id itself, or under the second tie-break a fixed hash of it (an order
 * uncorrelated with the ids, which follow the sorted fact names). */
static inline uint32_t rank_of(const Core *c, int x) {
    if (!c->tie) return (uint32_t)x;
    return ((uint32_t)x * 2654435761u + 1u) * 2246822519u;
}
#define RANK(x) rank_of(c, (x))

/* Whether no operator of cost <= EPS adds fact p (the goal zone can only be entered through
 * operators of positive cost there). */
static int zone_border(const Core *c, int p) {
    for (int k = c->ach_start[p]; k < c->ach_start[p + 1]; k++)
        if (c->cost[c->ach_list[k]] <= EPS) return 0;
    return 1;
}

/* The supporter of zero-cost operator o (now s) as the goal zone grows through it: among the
 * preconditions of s's value, the first that is on the zone's border (no zero-cost achiever) or
 * already in the zone, else s; the choice is kept in c->supp. Any precondition of the largest value
 * is a correct supporter; these keep the goal zone small, so the cuts are smaller and the values
 * larger (Fast Downward's goal-zone and border tie-breaking: satellite's initial values +3). */
static int zone_supporter(Core *c, int o, int s, const unsigned char *zone) {
    double hs = c->h[s];
    for (int j = c->pre_start[o]; j < c->pre_start[o + 1]; j++) {
        int p = c->pre_list[j];
        if (c->h[p] != hs) continue;
        if (zone_border(c, p) || zone[p]) {
            c->supp[o] = p;
            return p;
        }
    }
    return s;
}

/* h^max from the init facts under c->cost; fills c->h and c->supp. */
static int hmax(Core *c, int ninit) {
    int nf = c->nfacts, no = c->nops;
    double *h = c->h;
    for (int i = 0; i < nf; i++) h[i] = INFINITY;
    memcpy(c->unsat, c->pre_count, (size_t)no * sizeof(int));
    for (int o = 0; o < no; o++) c->supp[o] = -1;
    memset(c->done, 0, (size_t)nf);
    for (int i = 0; i < ninit; i++) h[c->init[i]] = 0.0;
    if (c->integral) {
        long long maxd = 0;
        c->nnodes = 0;
        for (int d = 0; d < c->nbuckets; d++) c->bhead[d] = c->btail[d] = -1;
        for (int i = 0; i < ninit; i++)
            if (bucket_push(c, 0, c->init[i]) < 0) return -1;
        for (long long d = 0; d <= maxd; d++) {
            /* the list may grow while it is walked (zero-cost operators push into bucket d) */
            for (int node = c->bhead[d]; node >= 0; node = c->node_next[node]) {
                int f = c->node_fact[node];
                if (c->done[f]) continue;
                c->done[f] = 1;
                for (int k = c->preof_start[f]; k < c->preof_start[f + 1]; k++) {
                    int o = c->preof_list[k];
                    if (--c->unsat[o] == 0) {
                        c->supp[o] = f;
                        double co = c->cost[o];
                        long long nd = d + (co > 0.0 ? (long long)co : 0);
                        for (int j = c->eff_start[o]; j < c->eff_start[o + 1]; j++) {
                            int e = c->eff_list[j];
                            if ((double)nd < h[e]) {
                                h[e] = (double)nd;
                                if (bucket_push(c, nd, e) < 0) return -1;
                                if (nd > maxd) maxd = nd;
                            }
                        }
                    }
                }
            }
        }
        return 0;
    }
    c->heap_len = 0;
    for (int i = 0; i < ninit; i++)
        if (heap_push(c, 0.0, c->init[i]) < 0) return -1;
    while (c->heap_len) {
        HeapItem it = heap_pop(c);
        int f = it.f;
        if (c->done[f]) continue;
        c->done[f] = 1;
        for (int k = c->preof_start[f]; k < c->preof_start[f + 1]; k++) {
            int o = c->preof_list[k];
            if (--c->unsat[o] == 0) {
                c->supp[o] = f;
                double nd = it.d + c->cost[o];
                for (int j = c->eff_start[o]; j < c->eff_start[o + 1]; j++) {
                    int e = c->eff_list[j];
                    if (nd < h[e]) {
                        h[e] = nd;
                        if (heap_push(c, nd, e) < 0) return -1;
                    }
                }
            }
        }
    }
    return 0;
}

/* Update h^max and supporters after the costs of the cut fell (values only fall). */
static int decrease(Core *c, int ncut) {
    double *h = c->h;
    c->heap_len = 0;
    for (int i = 0; i < ncut; i++) {
        int o = c->cut[i];
        double v = h[c->supp[o]] + c->cost[o];
        for (int j = c->eff_start[o]; j < c->eff_start[o + 1]; j++) {
            int e = c->eff_list[j];
            if (v < h[e] - EPS) {
                h[e] = v;
                if (heap_push(c, v, e) < 0) return -1;
            }
        }
    }
    while (c->heap_len) {
        HeapItem it = heap_pop(c);
        int f = it.f;
        if (it.d > h[f]) continue;
        for (int k = c->preof_start[f]; k < c->preof_start[f + 1]; k++) {
            int o = c->preof_list[k];
            /* Only an operator whose supporter fell needs a new one: its other preconditions fell
             * too, if at all, so the supporter is still a largest one (keeping it keeps the
             * justification graph of the previous cut, and gives larger h values). */
            if (c->supp[o] != f) continue;
            int best = f;
            double bv = h[f];
            for (int j = c->pre_start[o]; j < c->pre_start[o + 1]; j++) {
                int p = c->pre_list[j];
                if (h[p] > bv) {
                    bv = h[p];
                    best = p;
                } else if (h[p] == bv && p != best) {
                    c->tie_hit = 1; /* the ranking decides: the other ranking may choose otherwise */
                    if (RANK(p) > RANK(best)) best = p;
                }
            }
            c->supp[o] = best;
            double v = bv + c->cost[o];
            for (int j = c->eff_start[o]; j < c->eff_start[o + 1]; j++) {
                int e = c->eff_list[j];
                if (v < h[e] - EPS) {
                    h[e] = v;
                    if (heap_push(c, v, e) < 0) return -1;
                }
            }
        }
    }
    return 0;
}

static int out_reserve(Core *c, Py_ssize_t extra) {
    if (extra > PY_SSIZE_T_MAX / 4 - c->out_len) {
        PyErr_NoMemory();
        return -1;
    }
    if (c->out_len + extra <= c->out_cap) return 0;
    Py_ssize_t cap = c->out_cap ? c->out_cap : 256;
    while (cap < c->out_len + extra) cap *= 2;
    char *p = PyMem_Realloc(c->out, (size_t)cap);
    if (!p) {
        PyErr_NoMemory();
        return -1;
    }
    c->out = p;
    c->out_cap = cap;
    return 0;
}

/* Reads the init facts of a packed state into c->init; returns their count or -1.
 *
 * Runs no user code: an int subclass is read through its exact-int value (PyNumber_Index copies it
 * without calling __index__), so an overridden to_bytes cannot hand back a short or non-bytes
 * buffer. Every fact id is computed in 64 bits and checked against the variable's domain. */
static int read_state(Core *c, PyObject *state) {
    PyObject *packed = state;
    if (c->numeric) {
        if (!PyTuple_Check(state) || PyTuple_GET_SIZE(state) != 2) {
            PyErr_SetString(PyExc_TypeError, "a numeric task's state must be a (packed, numbers) tuple");
            return -1;
        }
        packed = PyTuple_GET_ITEM(state, 0);
    }
    if (!PyLong_Check(packed)) {
        PyErr_SetString(PyExc_TypeError, "the packed state must be an int");
        return -1;
    }
    int n = c->nvars;
    if (c->max_shift <= 64) {
        unsigned long long p = PyLong_AsUnsignedLongLong(packed);
        if (p == (unsigned long long)-1 && PyErr_Occurred()) {
            if (!PyErr_ExceptionMatches(PyExc_OverflowError)) return -1; /* e.g. MemoryError: kept */
            PyErr_Clear();
            PyErr_SetString(PyExc_ValueError, "the packed state does not fit the task's encoding");
            return -1;
        }
        for (int v = 0; v < n; v++) {
            int w = c->var_width[v];
            unsigned long long x = w ? (p >> c->var_shift[v]) & ((1ULL << w) - 1ULL) : 0ULL;
            long long f = (long long)c->var_base[v] + (long long)x;
            int lim = v + 1 < n ? c->var_base[v + 1] : c->top;
            if (f >= lim) goto out_of_domain;
            c->init[v] = (int)f;
        }
    } else {
        Py_ssize_t nbytes = (c->max_shift + 7) / 8;
        PyObject *exact = PyNumber_Index(packed); /* an exact int (a copy for a subclass) */
        if (!exact) return -1;
        PyObject *b = PyObject_CallMethod(exact, "to_bytes", "ns", nbytes, "little");
        Py_DECREF(exact);
        if (!b) {
            if (!PyErr_ExceptionMatches(PyExc_OverflowError)) return -1;
            PyErr_Clear();
            PyErr_SetString(PyExc_ValueError, "the packed state does not fit the task's encoding");
            return -1;
        }
        if (!PyBytes_CheckExact(b) || PyBytes_GET_SIZE(b) != nbytes) { /* cannot happen for int.to_bytes */
            Py_DECREF(b);
            PyErr_SetString(PyExc_SystemError, "int.to_bytes returned an unexpected value");
            return -1;
        }
        const unsigned char *bytes = (const unsigned char *)PyBytes_AS_STRING(b);
        for (int v = 0; v < n; v++) {
            int sh = c->var_shift[v], w = c->var_width[v];
            unsigned long long x = 0;
            for (int i = 0; i < w; i++) {
                int bit = sh + i;
                x |= (unsigned long long)((bytes[bit >> 3] >> (bit & 7)) & 1) << i;
            }
            long long f = (long long)c->var_base[v] + (long long)x;
            int lim = v + 1 < n ? c->var_base[v + 1] : c->top;
            if (f >= lim) {
                Py_DECREF(b);
                goto out_of_domain;
            }
            c->init[v] = (int)f;
        }
        Py_DECREF(b);
    }
    c->init[n] = c->top;
    return n + 1;
out_of_domain:
    PyErr_SetString(PyExc_ValueError, "the packed state holds a value outside a domain");
    return -1;
}

/* ---------------------------------------------------------------- methods */

/* LM-cut of the state whose init facts (c->init, ninit of them, TOP included) were read, starting from
 * the landmarks lm[0..lmlen) (records as evaluate() writes them). On return 0, *total is h and
 * c->out[0..c->out_len) holds every landmark (the inherited ones first); h = INFINITY leaves c->out
 * empty. Returns -1 with an exception set on malformed landmarks or memory exhaustion. Runs no
 * Python code. */
static int lmcut_once(Core *c, int ninit, const char *lm, Py_ssize_t lmlen, double *total_out) {
    c->out_len = 0;
    if (c->impossible) {
        *total_out = INFINITY;
        return 0;
    }
    memcpy(c->cost, c->base_cost, (size_t)c->nops * sizeof(double));
    double total = 0.0;
    Py_ssize_t pos = 0;
    while (pos < lmlen) {
        double m;
        int32_t n;
        const char *ops;
        if (lm_record(lm, lmlen, &pos, &m, &n, &ops) < 0 || !(m >= 0.0) || !isfinite(m)) goto bad_lm;
        total += m;
        for (int32_t i = 0; i < n; i++) {
            int32_t o = lm_op(ops, i);
            if (o < 0 || o >= c->nops) goto bad_lm;
            c->cost[o] -= m;
            /* never below 0 for landmarks of this Core (a subsequence of an evaluate() result: each m
             * was at most the remaining cost of its operators); a negative cost breaks h^max */
            if (c->cost[o] < 0.0) goto bad_lm;
        }
    }
    if (hmax(c, ninit) < 0) return -1;
    double *h = c->h;
    int goal = c->goal;
    if (h[goal] == INFINITY) {
        *total_out = INFINITY;
        return 0;
    }
    if (out_reserve(c, lmlen) < 0) return -1;
    if (lmlen) memcpy(c->out, lm, (size_t)lmlen);
    c->out_len = lmlen;
    int nf = c->nfacts;
    while (h[goal] > EPS) {
        unsigned char *zone = c->zone, *seen = c->seen;
        int *stack = c->stack;
        memset(zone, 0, (size_t)nf);
        zone[goal] = 1;
        int sp = 0;
        stack[sp++] = goal;
        while (sp) {
            int f = stack[--sp];
            for (int k = c->ach_start[f]; k < c->ach_start[f + 1]; k++) {
                int o = c->ach_list[k];
                if (c->cost[o] <= EPS) {
                    int s = c->supp[o];
                    if (s >= 0) s = zone_supporter(c, o, s, zone);
                    if (s >= 0 && !zone[s]) {
                        zone[s] = 1;
                        stack[sp++] = s;
                    }
                }
            }
        }
        memset(seen, 0, (size_t)nf);
        sp = 0;
        for (int i = 0; i < ninit; i++) {
            int f = c->init[i];
            /* a fact no operator needs leads nowhere: not pushed (most of a long chain's state) */
            if (!seen[f] && c->preof_start[f] < c->preof_start[f + 1]) {
                seen[f] = 1;
                stack[sp++] = f;
            }
        }
        int ncut = 0;
        while (sp) {
            int f = stack[--sp];
            for (int k = c->preof_start[f]; k < c->preof_start[f + 1]; k++) {
                int o = c->preof_list[k];
                if (c->supp[o] != f) continue;
                /* An operator that enters the goal zone is in the cut, and its other effects are not
                 * explored through it: every path through them already used a cut operator, so
                 * the cut stays a landmark, and a smaller one. */
                int crossing = 0;
                for (int j = c->eff_start[o]; j < c->eff_start[o + 1]; j++)
                    if (zone[c->eff_list[j]]) {
                        crossing = 1;
                        break;
                    }
                if (crossing) {
                    c->cut[ncut++] = o;
                    continue;
                }
                for (int j = c->eff_start[o]; j < c->eff_start[o + 1]; j++) {
                    int e = c->eff_list[j];
                    if (!seen[e]) {
                        seen[e] = 1;
                        stack[sp++] = e;
                    }
                }
            }
        }
        if (ncut == 0) {
            PyErr_SetString(PyExc_RuntimeError, "internal error: LM-cut found an empty cut");
            return -1;
        }
        double m = c->cost[c->cut[0]];
        for (int i = 1; i < ncut; i++)
            if (c->cost[c->cut[i]] < m) m = c->cost[c->cut[i]];
        /* A zero-cost cut changes nothing (same costs, same h^max, same cut next time): the loop would
         * never end. It happens when the goal zone reaches the state through operators of cost
         * <= EPS whose costs add up to more than EPS. Stop with the landmarks found so far, which are
         * still a cost partitioning (admissible). Whenever m > 0 an operator's cost drops to exactly
         * 0, so the loop ends after at most nops cuts. */
        if (!(m > 0.0)) break;
        total += m;
        for (int i = 0; i < ncut; i++) c->cost[c->cut[i]] -= m;
        Py_ssize_t rec = HDR + (Py_ssize_t)ncut * (Py_ssize_t)sizeof(int32_t);
        if (out_reserve(c, rec) < 0) return -1;
        int32_t n32 = ncut;
        memcpy(c->out + c->out_len, &m, sizeof(double));
        memcpy(c->out + c->out_len + sizeof(double), &n32, sizeof(int32_t));
        for (int i = 0; i < ncut; i++) {
            int32_t o = c->cut[i];
            memcpy(c->out + c->out_len + HDR + (Py_ssize_t)i * (Py_ssize_t)sizeof(int32_t), &o, sizeof(int32_t));
        }
        c->out_len += rec;
        if (decrease(c, ncut) < 0) return -1;
    }
    *total_out = total;
    return 0;
bad_lm:
    PyErr_SetString(PyExc_ValueError, "malformed landmarks (not produced by this Core's evaluate())");
    return -1;
}

static void swap_out(Core *c) {
    char *t = c->out;
    c->out = c->out2;
    c->out2 = t;
    Py_ssize_t l = c->out_len;
    c->out_len = c->out2_len;
    c->out2_len = l;
    Py_ssize_t k = c->out_cap;
    c->out_cap = c->out2_cap;
    c->out2_cap = k;
}

/* LM-cut of a state: while the ranking of tied supporters (rank_of, used when a cut lowers an
 * operator's supporter) is not chosen, under both rankings (the larger value, with its landmarks;
 * the first ranking's on equal values), then under the chosen one. Each value is admissible, so
 * their maximum is.
 *
 * Which ranking gives the larger values depends on the task (the fact ids follow the sorted fact
 * names, which suits rovers; the hashed order suits satellite). The first TIE_PROBES evaluations
 * (with a finite value) run both and count which one gave the strictly larger value; the one that
 * did so more often (the fact id on a tie) is used from then on. Deterministic: the same sequence
 * of calls gives the same values. */
#define TIE_PROBES 512
int lmcut_run(Core *c, int ninit, const char *lm, Py_ssize_t lmlen, double *total_out) {
    int use = c->tie_use;
    c->tie = use == 2;
    c->tie_hit = 0;
    int rc = lmcut_once(c, ninit, lm, lmlen, total_out);
    c->tie = 0;
    if (rc < 0) return -1;
    if (use != 0 || *total_out == INFINITY) return 0;
    if (!c->tie_hit) {
        /* No supporter was chosen by rank: the second ranking would repeat this run step for step
         * and give the same value (a probe neither ranking wins), so it is not run. On a long
         * chain this halves the first evaluations, the costliest ones. */
        c->tie_probes++;
        if (c->tie_probes == TIE_PROBES) c->tie_use = c->tie_wins[1] > c->tie_wins[0] ? 2 : 1;
        return 0;
    }
    swap_out(c);
    double second;
    c->tie = 1;
    rc = lmcut_once(c, ninit, lm, lmlen, &second);
    c->tie = 0;
    if (rc < 0) return -1;
    c->tie_probes++;
    int won = second > *total_out ? 1 : (*total_out > second ? 0 : -1);
    if (won >= 0) c->tie_wins[won]++;
    if (c->tie_probes == TIE_PROBES) c->tie_use = c->tie_wins[1] > c->tie_wins[0] ? 2 : 1;
    if (won == 1) {
        *total_out = second;
        return 0;
    }
    swap_out(c);
    return 0;
}

static PyObject *Core_evaluate(Core *c, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "evaluate(state, inherited) takes 2 arguments");
        return NULL;
    }
    PyObject *inherited = args[1];
    const char *lm = NULL;
    Py_ssize_t lmlen = 0;
    if (PyBytes_Check(inherited)) {
        lm = PyBytes_AS_STRING(inherited);
        lmlen = PyBytes_GET_SIZE(inherited);
    } else if (!(PyTuple_Check(inherited) && PyTuple_GET_SIZE(inherited) == 0)) {
        PyErr_SetString(PyExc_TypeError, "inherited landmarks must be bytes from evaluate() or ()");
        return NULL;
    }
    if (c->impossible) return Py_BuildValue("(dy#)", INFINITY, "", (Py_ssize_t)0);
    int ninit = read_state(c, args[0]);
    if (ninit < 0) return NULL;
    double total;
    if (lmcut_run(c, ninit, lm, lmlen, &total) < 0) return NULL;
    if (total == INFINITY) return Py_BuildValue("(dy#)", INFINITY, "", (Py_ssize_t)0);
    PyObject *hv = PyFloat_FromDouble(total);
    if (!hv) return NULL;
    PyObject *lms;
    if (c->out_len == lmlen && PyBytes_Check(inherited)) {
        Py_INCREF(inherited);
        lms = inherited;
    } else {
        lms = PyBytes_FromStringAndSize(c->out, c->out_len);
        if (!lms) {
            Py_DECREF(hv);
            return NULL;
        }
    }
    PyObject *res = PyTuple_Pack(2, hv, lms);
    Py_DECREF(hv);
    Py_DECREF(lms);
    return res;
}

Py_ssize_t lm_without(const char *lm, Py_ssize_t lmlen, int op, char *out) {
    Py_ssize_t pos = 0, len = 0;
    while (pos < lmlen) {
        Py_ssize_t start = pos;
        double m;
        int32_t n;
        const char *ops;
        if (lm_record(lm, lmlen, &pos, &m, &n, &ops) < 0) return -1;
        int32_t i = 0;
        while (i < n && lm_op(ops, i) != op) i++;
        if (i == n) { /* op is not in this landmark: the child keeps it */
            memcpy(out + len, lm + start, (size_t)(pos - start));
            len += pos - start;
        }
    }
    return len;
}

static PyObject *Core_inherit(Core *c, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2 || !PyBytes_Check(args[0]) || !PyLong_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "inherit(landmarks: bytes, op_index: int)");
        return NULL;
    }
    PyObject *lmobj = args[0];
    int overflow = 0;
    long long op = PyLong_AsLongLongAndOverflow(args[1], &overflow);
    if (op == -1 && PyErr_Occurred()) return NULL;
    if (overflow || op < 0 || op >= c->ncompiled) {
        PyErr_Format(PyExc_ValueError, "operator index %R out of range", args[1]);
        return NULL;
    }
    int r = c->relaxed_of[op];
    if (r < 0) {
        Py_INCREF(lmobj);
        return lmobj;
    }
    const char *lm = PyBytes_AS_STRING(lmobj);
    Py_ssize_t lmlen = PyBytes_GET_SIZE(lmobj);
    c->out_len = 0;
    if (out_reserve(c, lmlen) < 0) return NULL;
    c->out_len = lm_without(lm, lmlen, r, c->out);
    if (c->out_len < 0) {
        c->out_len = 0;
        goto bad;
    }
    if (c->out_len == lmlen) { /* nothing dropped */
        Py_INCREF(lmobj);
        return lmobj;
    }
    return PyBytes_FromStringAndSize(c->out, c->out_len);
bad:
    PyErr_SetString(PyExc_ValueError, "malformed landmarks (not produced by this Core's evaluate())");
    return NULL;
}

static PyObject *Core_decode(Core *c, PyObject *arg) {
    if (!PyBytes_Check(arg)) {
        PyErr_SetString(PyExc_TypeError, "decode(landmarks: bytes)");
        return NULL;
    }
    const char *lm = PyBytes_AS_STRING(arg);
    Py_ssize_t lmlen = PyBytes_GET_SIZE(arg), pos = 0;
    PyObject *out = PyList_New(0);
    if (!out) return NULL;
    while (pos < lmlen) {
        double m;
        int32_t n;
        const char *ids;
        if (lm_record(lm, lmlen, &pos, &m, &n, &ids) < 0) goto bad;
        PyObject *ops = PyList_New(n);
        if (!ops) goto fail;
        for (int32_t i = 0; i < n; i++) {
            PyObject *x = PyLong_FromLong(lm_op(ids, i));
            if (!x) {
                Py_DECREF(ops);
                goto fail;
            }
            PyList_SET_ITEM(ops, i, x);
        }
        PyObject *item = Py_BuildValue("(Nd)", ops, m);
        if (!item || PyList_Append(out, item) < 0) {
            Py_XDECREF(item);
            goto fail;
        }
        Py_DECREF(item);
    }
    return out;
bad:
    PyErr_SetString(PyExc_ValueError, "malformed landmarks");
fail:
    Py_DECREF(out);
    return NULL;
}

/* ---------------------------------------------------------------- construction */

/* Flattens a sequence of int sequences into start/list arrays, checking every id < limit.
 *
 * The outer sequence and each inner one are first copied into tuples: converting an item may run
 * user code (__index__, __iter__, __len__), which could otherwise shrink a list while it is read. */
static int flatten(PyObject *seq, Py_ssize_t count, int limit, int **start, int **list, const char *what) {
    PyObject *outer = PySequence_Tuple(seq);
    if (!outer) return -1;
    PyObject *inners = NULL;
    if (PyTuple_GET_SIZE(outer) != count) {
        PyErr_Format(PyExc_ValueError, "%s: expected %zd entries", what, count);
        goto fail;
    }
    inners = PyTuple_New(count);
    if (!inners) goto fail;
    Py_ssize_t total = 0;
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *t = PySequence_Tuple(PyTuple_GET_ITEM(outer, i));
        if (!t) goto fail;
        PyTuple_SET_ITEM(inners, i, t);
        if (PyTuple_GET_SIZE(t) > INT32_MAX - total) {
            PyErr_Format(PyExc_ValueError, "%s: too many entries", what);
            goto fail;
        }
        total += PyTuple_GET_SIZE(t);
    }
    *start = PyMem_Calloc((size_t)count + 1, sizeof(int));
    *list = PyMem_Calloc((size_t)total + 1, sizeof(int));
    if (!*start || !*list) {
        PyErr_NoMemory();
        goto fail;
    }
    int k = 0;
    for (Py_ssize_t i = 0; i < count; i++) {
        (*start)[i] = k;
        PyObject *t = PyTuple_GET_ITEM(inners, i);
        for (Py_ssize_t j = 0; j < PyTuple_GET_SIZE(t); j++) {
            long v = PyLong_AsLong(PyTuple_GET_ITEM(t, j));
            if (v == -1 && PyErr_Occurred()) goto fail;
            if (v < 0 || v >= limit) {
                PyErr_Format(PyExc_ValueError, "%s: id %ld out of range", what, v);
                goto fail;
            }
            (*list)[k++] = (int)v;
        }
    }
    (*start)[count] = k;
    Py_DECREF(inners);
    Py_DECREF(outer);
    return 0;
fail:
    Py_XDECREF(inners);
    Py_DECREF(outer);
    return -1;
}

/* Inverse adjacency: for each fact, the operators listing it (in operator order). */
static int invert(int nops, int nfacts, const int *start, const int *list, int **istart, int **ilist) {
    *istart = PyMem_Calloc((size_t)nfacts + 1, sizeof(int));
    *ilist = PyMem_Calloc((size_t)start[nops] + 1, sizeof(int));
    int *fill = PyMem_Calloc((size_t)nfacts + 1, sizeof(int));
    if (!*istart || !*ilist || !fill) {
        PyMem_Free(fill);
        PyErr_NoMemory();
        return -1;
    }
    for (int k = 0; k < start[nops]; k++) (*istart)[list[k] + 1]++;
    for (int f = 0; f < nfacts; f++) (*istart)[f + 1] += (*istart)[f];
    for (int o = 0; o < nops; o++)
        for (int k = start[o]; k < start[o + 1]; k++) {
            int f = list[k];
            (*ilist)[(*istart)[f] + fill[f]++] = o;
        }
    PyMem_Free(fill);
    return 0;
}

/* Builds every array of a zeroed Core; on failure the caller frees what was built (core_clear). */
static int core_setup(Core *self, int nfacts, PyObject *pres, PyObject *effs, PyObject *costs, int goal, int top,
                      PyObject *varinfo, PyObject *relaxed_of, int integral, int impossible, int numeric) {
    if (nfacts <= 0 || goal < 0 || goal >= nfacts || top < 0 || top >= nfacts) {
        PyErr_SetString(PyExc_ValueError, "nfacts, goal and top must describe facts of the task");
        return -1;
    }
    Py_ssize_t nops = PyObject_Length(pres);
    if (nops < 0) return -1;
    if (nops > INT32_MAX / 2) {
        PyErr_SetString(PyExc_ValueError, "too many operators");
        return -1;
    }
    self->nfacts = nfacts;
    self->nops = (int)nops;
    self->goal = goal;
    self->top = top;
    self->integral = integral;
    self->impossible = impossible;
    self->numeric = numeric;
    if (flatten(pres, nops, nfacts, &self->pre_start, &self->pre_list, "pres") < 0) return -1;
    if (flatten(effs, nops, nfacts, &self->eff_start, &self->eff_list, "effs") < 0) return -1;
    for (int o = 0; o < nops; o++)
        if (self->pre_start[o + 1] == self->pre_start[o]) {
            PyErr_SetString(PyExc_ValueError, "pres: every operator needs a precondition (TOP if none)");
            return -1;
        }
    if (invert((int)nops, nfacts, self->pre_start, self->pre_list, &self->preof_start, &self->preof_list) < 0)
        return -1;
    if (invert((int)nops, nfacts, self->eff_start, self->eff_list, &self->ach_start, &self->ach_list) < 0)
        return -1;
    self->pre_count = PyMem_Calloc((size_t)nops + 1, sizeof(int));
    self->base_cost = PyMem_Calloc((size_t)nops + 1, sizeof(double));
    if (!self->pre_count || !self->base_cost) {
        PyErr_NoMemory();
        return -1;
    }
    for (int o = 0; o < nops; o++) self->pre_count[o] = self->pre_start[o + 1] - self->pre_start[o];
    /* tuple copies below: converting an item may run user code that mutates a list */
    PyObject *tup = tuple_of_len(costs, nops, "costs: one per operator");
    if (!tup) return -1;
    for (Py_ssize_t o = 0; o < nops; o++) {
        double v = PyFloat_AsDouble(PyTuple_GET_ITEM(tup, o));
        if (v == -1.0 && PyErr_Occurred()) {
            Py_DECREF(tup);
            return -1;
        }
        if (!(v >= 0.0) || !isfinite(v) || (integral && (v != floor(v) || v > 1e6))) {
            Py_DECREF(tup);
            PyErr_SetString(PyExc_ValueError, "costs must be finite, >= 0 (and whole, <= 1e6, when integral)");
            return -1;
        }
        self->base_cost[o] = v;
    }
    Py_DECREF(tup);
    /* variables: (base, shift, mask) */
    tup = PySequence_Tuple(varinfo);
    if (!tup) return -1;
    Py_ssize_t nv = PyTuple_GET_SIZE(tup);
    if (nv > top) { /* bases are distinct facts below top */
        Py_DECREF(tup);
        PyErr_SetString(PyExc_ValueError, "varinfo: more variables than facts");
        return -1;
    }
    self->nvars = (int)nv;
    self->var_base = PyMem_Calloc((size_t)nv + 1, sizeof(int));
    self->var_shift = PyMem_Calloc((size_t)nv + 1, sizeof(int));
    self->var_width = PyMem_Calloc((size_t)nv + 1, sizeof(int));
    if (!self->var_base || !self->var_shift || !self->var_width) {
        Py_DECREF(tup);
        PyErr_NoMemory();
        return -1;
    }
    self->max_shift = 0;
    for (Py_ssize_t v = 0; v < nv; v++) {
        PyObject *item = PyTuple_GET_ITEM(tup, v);
        if (!PyTuple_Check(item) || PyTuple_GET_SIZE(item) != 3) {
            Py_DECREF(tup);
            PyErr_SetString(PyExc_TypeError, "varinfo: (base, shift, mask) tuples expected");
            return -1;
        }
        long long b = PyLong_AsLongLong(PyTuple_GET_ITEM(item, 0));
        long long sh = b == -1 && PyErr_Occurred() ? -1 : PyLong_AsLongLong(PyTuple_GET_ITEM(item, 1));
        long long m = sh == -1 && PyErr_Occurred() ? -1 : PyLong_AsLongLong(PyTuple_GET_ITEM(item, 2));
        if (m == -1 && PyErr_Occurred()) {
            Py_DECREF(tup);
            if (PyErr_ExceptionMatches(PyExc_OverflowError)) {
                PyErr_Clear();
                PyErr_SetString(PyExc_ValueError, "varinfo: bad (base, shift, mask)");
            }
            return -1;
        }
        int w = 0;
        if (m >= 0)
            while (w < 31 && (m >> w)) w++;
        if (b < 0 || b >= top || sh < 0 || sh > (1LL << 26) || m < 0 || m != (1LL << w) - 1 ||
            (v > 0 && b <= self->var_base[v - 1])) {
            Py_DECREF(tup);
            PyErr_SetString(PyExc_ValueError, "varinfo: bad (base, shift, mask)");
            return -1;
        }
        self->var_base[v] = (int)b;
        self->var_shift[v] = (int)sh;
        self->var_width[v] = w;
        if (sh + w > self->max_shift) self->max_shift = (int)(sh + w);
    }
    Py_DECREF(tup);
    tup = PySequence_Tuple(relaxed_of);
    if (!tup) return -1;
    Py_ssize_t nc = PyTuple_GET_SIZE(tup);
    if (nc > INT32_MAX / 2) {
        Py_DECREF(tup);
        PyErr_SetString(PyExc_ValueError, "relaxed_of: too many operators");
        return -1;
    }
    self->ncompiled = (int)nc;
    self->relaxed_of = PyMem_Calloc((size_t)nc + 1, sizeof(int));
    if (!self->relaxed_of) {
        Py_DECREF(tup);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < nc; i++) {
        long r = PyLong_AsLong(PyTuple_GET_ITEM(tup, i));
        if ((r == -1 && PyErr_Occurred()) || r < -1 || r >= nops) {
            Py_DECREF(tup);
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "relaxed_of: id out of range");
            return -1;
        }
        self->relaxed_of[i] = (int)r;
    }
    Py_DECREF(tup);
    size_t nf = (size_t)nfacts, no = (size_t)nops;
    self->h = PyMem_Calloc(nf + 1, sizeof(double));
    self->cost = PyMem_Calloc(no + 1, sizeof(double));
    self->unsat = PyMem_Calloc(no + 1, sizeof(int));
    self->supp = PyMem_Calloc(no + 1, sizeof(int));
    self->stack = PyMem_Calloc(nf + 1, sizeof(int));
    self->cut = PyMem_Calloc(no + 1, sizeof(int));
    self->init = PyMem_Calloc((size_t)nv + 2, sizeof(int));
    self->done = PyMem_Calloc(nf + 1, 1);
    self->zone = PyMem_Calloc(nf + 1, 1);
    self->seen = PyMem_Calloc(nf + 1, 1);
    if (!self->h || !self->cost || !self->unsat || !self->supp || !self->stack || !self->cut || !self->init ||
        !self->done || !self->zone || !self->seen) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

static int Core_init(Core *self, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"nfacts", "pres", "effs", "costs", "goal", "top", "varinfo",
                             "relaxed_of", "integral", "impossible", "numeric", NULL};
    int nfacts, goal, top, integral, impossible, numeric;
    PyObject *pres, *effs, *costs, *varinfo, *relaxed_of;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "iOOOiiOOppp", kwlist, &nfacts, &pres, &effs, &costs, &goal,
                                     &top, &varinfo, &relaxed_of, &integral, &impossible, &numeric))
        return -1;
    /* checked after parsing (which may run user code); nothing below releases the GIL before busy is set */
    if (self->ready || self->busy) {
        PyErr_SetString(PyExc_RuntimeError,
                        self->ready ? "Core is already initialised" : "Core is being initialised");
        return -1;
    }
    core_clear(self); /* nothing is left from a failed __init__ (core_clear ran then too); harmless */
    self->busy = 1;   /* user code run by the conversions below cannot re-enter __init__ */
    if (core_setup(self, nfacts, pres, effs, costs, goal, top, varinfo, relaxed_of, integral, impossible,
                   numeric) < 0) {
        core_clear(self);
        return -1;
    }
    self->busy = 0;
    self->ready = 1;
    return 0;
}

static PyObject *Core_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    Core *self = (Core *)type->tp_alloc(type, 0); /* zero-filled: every pointer starts NULL */
    return (PyObject *)self;
}

static PyObject *Core_call_evaluate(Core *c, PyObject *const *args, Py_ssize_t nargs) {
    /* h only: evaluate(state, ())[0] */
    if (nargs != 1) {
        PyErr_SetString(PyExc_TypeError, "h(state) takes 1 argument");
        return NULL;
    }
    PyObject *a[2] = {args[0], PyTuple_New(0)};
    if (!a[1]) return NULL;
    PyObject *r = Core_evaluate(c, a, 2);
    Py_DECREF(a[1]);
    if (!r) return NULL;
    PyObject *h = PyTuple_GET_ITEM(r, 0);
    Py_INCREF(h);
    Py_DECREF(r);
    return h;
}

static PyObject *Core_guarded_evaluate(Core *c, PyObject *const *args, Py_ssize_t nargs) {
    if (!c->ready) {
        PyErr_SetString(PyExc_RuntimeError, "Core is not initialised");
        return NULL;
    }
    return Core_evaluate(c, args, nargs);
}

static PyObject *Core_guarded_inherit(Core *c, PyObject *const *args, Py_ssize_t nargs) {
    if (!c->ready) {
        PyErr_SetString(PyExc_RuntimeError, "Core is not initialised");
        return NULL;
    }
    return Core_inherit(c, args, nargs);
}

static PyObject *Core_guarded_value(Core *c, PyObject *const *args, Py_ssize_t nargs) {
    if (!c->ready) {
        PyErr_SetString(PyExc_RuntimeError, "Core is not initialised");
        return NULL;
    }
    return Core_call_evaluate(c, args, nargs);
}

static PyMethodDef Core_methods[] = {
    {"evaluate", (PyCFunction)(void (*)(void))Core_guarded_evaluate, METH_FASTCALL,
     "evaluate(state, inherited) -> (h, landmarks): LM-cut of a packed state from inherited landmarks."},
    {"inherit", (PyCFunction)(void (*)(void))Core_guarded_inherit, METH_FASTCALL,
     "inherit(landmarks, op_index) -> landmarks without those containing the compiled operator."},
    {"value", (PyCFunction)(void (*)(void))Core_guarded_value, METH_FASTCALL,
     "value(state) -> h: LM-cut of a packed state from scratch."},
    {"search", (PyCFunction)(void (*)(void))Core_search, METH_FASTCALL,
     "search(ops, buckets, goal, weight, greedy, limit, deadline, clock, canon, detect, switch_at) -> "
     "(status, path, cost, expanded, generated, evaluated, reopened, initial h): goap.planning._search.best_first "
     "in C over a plain task (see _astar.c)."},
    {"decode", (PyCFunction)Core_decode, METH_O,
     "decode(landmarks) -> [(relaxed operator ids, cost), ...] (for tests and debugging)."},
    {NULL, NULL, 0, NULL}};

static PyTypeObject CoreType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "goap.planning._lmcut.Core",
    .tp_basicsize = sizeof(Core),
    .tp_dealloc = (destructor)Core_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "LM-cut over a relaxed task given as integer arrays (see goap.planning.heuristics.lmcut).",
    .tp_methods = Core_methods,
    .tp_init = (initproc)Core_init,
    .tp_new = Core_new,
};

static struct PyModuleDef moduledef = {PyModuleDef_HEAD_INIT, "goap.planning._lmcut",
                                       "C accelerator of the LM-cut heuristic.", -1, NULL, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__lmcut(void) {
    if (PyType_Ready(&CoreType) < 0) return NULL;
    PyObject *m = PyModule_Create(&moduledef);
    if (!m) return NULL;
    Py_INCREF(&CoreType);
    if (PyModule_AddObject(m, "Core", (PyObject *)&CoreType) < 0) {
        Py_DECREF(&CoreType);
        Py_DECREF(m);
        return NULL;
    }
    if (PyType_Ready(&CanonType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    Py_INCREF(&CanonType);
    if (PyModule_AddObject(m, "Canon", (PyObject *)&CanonType) < 0) {
        Py_DECREF(&CanonType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
