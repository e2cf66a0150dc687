/* Shared by the two files of the goap.planning._lmcut extension: the LM-cut core (_lmcut.c) and the A* search
 * that drives it without leaving C (_astar.c). */
#ifndef GOAP_LMCUT_H
#define GOAP_LMCUT_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define EPS 1e-9

/* Resize the PyMem array ptr of type to cap elements, keeping its contents; on failure set
 * MemoryError and return -1 from the enclosing function (ptr is then unchanged). */
#define GROW(ptr, type, cap)                                                  \
    do {                                                                      \
        type *np_ = PyMem_Realloc((ptr), (size_t)(cap) * sizeof(type));       \
        if (!np_) {                                                           \
            PyErr_NoMemory();                                                 \
            return -1;                                                        \
        }                                                                     \
        (ptr) = np_;                                                          \
    } while (0)

#define HDR ((Py_ssize_t)(sizeof(double) + sizeof(int32_t)))

typedef struct {
    double d;
    int f;
} HeapItem;

typedef struct {
    PyObject_HEAD
    int ready, busy, nfacts, nops, goal, top, nvars, ncompiled, integral, impossible, numeric;
    int *pre_start, *pre_list, *eff_start, *eff_list;
    int *preof_start, *preof_list, *ach_start, *ach_list;
    int *pre_count;
    double *base_cost;
    int *var_base, *var_shift, *var_width;
    int *relaxed_of;
    int max_shift;
    /* scratch */
    double *h, *cost;
    int *unsat, *supp, *stack, *cut, *init;
    unsigned char *done, *zone, *seen;
    HeapItem *heap;
    Py_ssize_t heap_len, heap_cap;
    /* Dial buckets: linked lists over a node pool */
    int *bhead, *btail, nbuckets;
    int *node_fact, *node_next, nnodes, node_cap;
    /* output buffer, and the other ranking's (see lmcut_run) */
    char *out, *out2;
    Py_ssize_t out_len, out_cap, out2_len, out2_cap;
    /* supporter ranking of the current run (0: fact id, 1: hashed id; see rank_of); the one
     * lmcut_run uses (0: not chosen yet, both; 1: fact id; 2: hashed id), and its probe counts */
    int tie, tie_use;
    long long tie_probes, tie_wins[2];
    /* whether the current run broke a tie between two preconditions by rank (see lmcut_run) */
    int tie_hit;
} Core;

#if defined(__GNUC__)
#define GOAP_INTERNAL __attribute__((visibility("hidden")))
#else
#define GOAP_INTERNAL
#endif

/* Packed states as C holds them: little-endian arrays of nw 64-bit words. */

/* The width bits at shift (width <= 32). */
static inline uint64_t state_bits(const uint64_t *w, int shift, int width) {
    if (width == 0) return 0;
    int k = shift >> 6, off = shift & 63;
    uint64_t x = w[k] >> off;
    if (off + width > 64) x |= w[k + 1] << (64 - off);
    return x & (((uint64_t)1 << width) - 1);
}

/* The Python int of a state (buf: nw * 8 bytes of scratch). */
GOAP_INTERNAL PyObject *state_to_int(const uint64_t *w, int nw, unsigned char *buf);

/* A Python int into nw words: 0, or -1 with ValueError (negative, wider than nw words: `what` names
 * the value in the message) or another exception. Runs no user code: an int subclass is read
 * through its exact value. */
GOAP_INTERNAL int state_from_int(PyObject *v, uint64_t *w, int nw, unsigned char *buf, const char *what);

/* The ints of the sequence seq into a new zeroed PyMem array *out (*n of them, one spare slot): 0, or
 * -1 with ValueError ("<owner>: <what>: <value> out of range") when a value is outside [lo, hi) or
 * the sequence is too long, or with the exception that reading it raised. */
GOAP_INTERNAL int int_array(PyObject *seq, const char *owner, const char *what, long lo, long hi, int **out, int *n);

/* Defines the two operations of binary min-heaps of T ordered by LESS(a, b) on two items:
 *   static int PUSH(T **heap, Py_ssize_t *len, Py_ssize_t *cap, T x, Py_ssize_t first_cap): adds x,
 *     growing the array (to first_cap items the first time); 0, or -1 with MemoryError;
 *   static T POP(T *heap, Py_ssize_t *len): removes and returns the least item (*len > 0).
 * Both sifts hold the moving item aside and shift the others, so each step is one copy. */
#define DEFINE_HEAP(T, LESS, PUSH, POP)                                                     \
    static int PUSH(T **heap, Py_ssize_t *len, Py_ssize_t *cap, T x, Py_ssize_t first_cap) { \
        if (*len == *cap) {                                                                 \
            Py_ssize_t ncap = *cap ? 2 * *cap : first_cap;                                  \
            GROW(*heap, T, ncap);                                                           \
            *cap = ncap;                                                                    \
        }                                                                                   \
        T *hp = *heap;                                                                      \
        Py_ssize_t i = (*len)++;                                                            \
        while (i > 0) {                                                                     \
            Py_ssize_t up = (i - 1) >> 1;                                                   \
            if (!LESS(x, hp[up])) break;                                                    \
            hp[i] = hp[up];                                                                 \
            i = up;                                                                         \
        }                                                                                   \
        hp[i] = x;                                                                          \
        return 0;                                                                           \
    }                                                                                       \
    static T POP(T *hp, Py_ssize_t *len) {                                                  \
        T top = hp[0], last = hp[--*len];                                                   \
        Py_ssize_t n = *len, i = 0;                                                         \
        for (;;) {                                                                          \
            Py_ssize_t l = 2 * i + 1;                                                       \
            if (l >= n) break;                                                              \
            Py_ssize_t m = l;                                                               \
            if (l + 1 < n && LESS(hp[l + 1], hp[l])) m = l + 1;                             \
            if (!LESS(hp[m], last)) break;                                                  \
            hp[i] = hp[m];                                                                  \
            i = m;                                                                          \
        }                                                                                   \
        if (n > 0) hp[i] = last;                                                            \
        return top;                                                                         \
    }

/* tuple(seq) when it has n items: a new reference; else NULL with ValueError(msg), or with the
 * exception tuple() raised. */
static inline PyObject *tuple_of_len(PyObject *seq, Py_ssize_t n, const char *msg) {
    PyObject *t = PySequence_Tuple(seq);
    if (t && PyTuple_GET_SIZE(t) != n) {
        Py_DECREF(t);
        PyErr_SetString(PyExc_ValueError, msg);
        return NULL;
    }
    return t;
}

/* Landmarks as bytes: records of a double cost m, an int32 count n and n int32 operator ids, unaligned. */

/* The record at lm[*pos..lmlen): its cost *m, its count *n, *ops at its operator ids (read them with
 * lm_op); *pos moves past it. 0, or -1 when the bytes left do not hold a whole record. */
static inline int lm_record(const char *lm, Py_ssize_t lmlen, Py_ssize_t *pos, double *m, int32_t *n,
                            const char **ops) {
    if (lmlen - *pos < HDR) return -1;
    memcpy(m, lm + *pos, sizeof(double));
    memcpy(n, lm + *pos + sizeof(double), sizeof(int32_t));
    Py_ssize_t at = *pos + HDR;
    if (*n < 0 || (lmlen - at) / (Py_ssize_t)sizeof(int32_t) < *n) return -1;
    *ops = lm + at;
    *pos = at + (Py_ssize_t)*n * (Py_ssize_t)sizeof(int32_t);
    return 0;
}

/* Operator id i of a record's ids. */
static inline int32_t lm_op(const char *ops, int32_t i) {
    int32_t o;
    memcpy(&o, ops + (Py_ssize_t)i * (Py_ssize_t)sizeof(int32_t), sizeof(int32_t));
    return o;
}

/* Copies to out (room for lmlen bytes) the records of lm[0..lmlen) that do not hold operator op: the
 * landmarks a child inherits when op leads to it. The bytes written, or -1 when lm is malformed. */
GOAP_INTERNAL Py_ssize_t lm_without(const char *lm, Py_ssize_t lmlen, int op, char *out);

/* LM-cut of the state whose init facts are in c->init (ninit of them, TOP included), from the
 * inherited landmarks lm[0..lmlen); see _lmcut.c. */
GOAP_INTERNAL int lmcut_run(Core *c, int ninit, const char *lm, Py_ssize_t lmlen, double *total_out);

/* goap.planning._lmcut.Canon (see _canon.c): one class of interchangeable objects, and the canonicalizer. */
typedef struct {
    int n, nv, ntid, nvt;
    int *own, *ktid;
    long long *wcode;
    int *ref_start;           /* per variable: first (object, template) pair of its values */
    int *refobj, *refvt;      /* per (variable, value) */
    int *owned_start, *owned; /* per object: its variables */
    int *tv;                  /* [ntid * n] -> variable, -1 */
    int *vmap_off;            /* per variable: offset of its [nvt * n] block in vmap, -1 */
    int *vmap;                /* -> value, -1 */
    int *refvars, nrefvars, *touch, ntouch;
    PyObject *identity; /* tuple(range(n)) */
} Class;

typedef struct CanonObject {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    int ready, busy, nv, nw, nclasses;
    int *shift, *width;
    Class *classes;
    int *repack, nrepack; /* variables any class can change, ascending */
    /* scratch */
    int *vals, *newidx, *order, *sigstart, *pairs; /* pairs: 2 per touched variable of the largest class */
    long long *sigs;
    int sigcap;
    uint64_t *words;
    unsigned char *bytes;
} CanonObject;

GOAP_INTERNAL extern PyTypeObject CanonType;

/* The canonical form of a state (nw words, as Core.search holds it) in place; *perm: a new
 * reference to the permutation tuple, NULL when the state is canonical already. */
GOAP_INTERNAL int canon_words(CanonObject *c, uint64_t *w, PyObject **perm);

/* Core.search(...): best-first search over the compiled task; see _astar.c. */
GOAP_INTERNAL PyObject *Core_search(Core *c, PyObject *const *args, Py_ssize_t nargs);

#endif
