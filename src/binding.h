/* binding.h -- internal header of the NumPy binding (the only files that include Python.h):
 *   bind_table.c     the kernel descriptors (start there to add a kernel), their loops and
 *                    error messages;
 *   bind_operands.c  one call: parse the arguments, read and check the operands against the
 *                    descriptor, broadcast the batch shapes, allocate or check out=;
 *   bind_indices.c   integer operands (parents, joint indices) and their messages;
 *   bind_args.c      what both of these need: an argument as an ndarray, an input by name;
 *   bind_run.c       the threaded batch runner (threads=, GIL released);
 *   bind_clip.c      clip sampling (ragged: a packed channel table, not a descriptor);
 *   bind_fbx.c       FBX scenes (src/fbx_read.c over ufbx) as NumPy arrays;
 *   _core.c          the module: one Python function per descriptor.
 * The loops (bind_loops.h) see no Python object: only pointers, strides and a loop_ctx. */
#ifndef SK_BINDING_H
#define SK_BINDING_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define NPY_NO_DEPRECATED_API NPY_1_24_API_VERSION
#define NPY_TARGET_VERSION NPY_1_24_API_VERSION
#ifndef SK_IMPORT_ARRAY /* only _core.c defines the API table; the other files import it */
#define NO_IMPORT_ARRAY
#endif
#define PY_ARRAY_UNIQUE_SYMBOL skinkit_ARRAY_API
#include <numpy/arrayobject.h>

#include "skinkit.h"

#include <math.h>

/* t mod d for d > 0, as NumPy's remainder computes it (npy_divmod: the result takes the sign
 * of d), in float and in double: the players' wrapped times are
 * the samplers' to the bit (bind_clip.c, bind_compress.c) */
static inline float wrap_f(float t, float d)
{
    float m = fmodf(t, d);
    return m ? (m < 0 ? m + d : m) : 0.0f;
}

static inline double wrap_d(double t, double d)
{
    double m = fmod(t, d);
    return m ? (m < 0 ? m + d : m) : 0.0;
}

#define MAXOP 12       /* operands of one kernel, inputs and outputs */
#define MAXCORE 4      /* core dimensions of one operand */
#define MAX_THREADS 64
#define NSYM 26        /* symbolic sizes are single capital letters: J, V, K, L... */
#define SYM(c) ((c) - 'A')

/* ------------------------------------------------------------------ the descriptor */

enum op_kind {
    OP_REAL = 0,  /* float32/float64 (integers convert to float64), C-contiguous */
    OP_PARENTS,   /* (J) joint parents, any integer type: int32 and a topological order
                     (sk_topological_order), once per call */
    OP_JOINTS     /* (V, K) joint indices, any integer type (uint8, uint16 and int32 read as they
                     are), checked by the loop on the first pose (fail_joint_index words it) */
};

enum op_flag {
    OP_OUT = 1,      /* an output (allocated, or given in out=) */
    OP_OPTIONAL = 2, /* an input that may be None (the loop gets a NULL pointer) */
    OP_REDUCE = 4,   /* an output without the kernel's inner symbol: zeroed, then summed into
                        by every item of a run (a pose's vertices); runs are not split between
                        threads */
    OP_READ = 8      /* an output the loop may read before writing it (what out= holds): zeroed
                        when allocated */
};

typedef struct loop_ctx loop_ctx;
/* one run of n items: p[k] points at the first item of operand k (NULL when absent), s[k] is
 * its item stride in elements (0: the same item for all n).  Returns SK_OK or a status, with
 * c->bad the failing item counted from p. */
typedef int (*loop_fn)(size_t n, char **p, const ptrdiff_t *s, loop_ctx *c);

typedef struct {
    const char *name;  /* the argument's name, in messages, stubs and docstrings */
    const char *shape; /* gufunc-style "(...,J,4)": "..." takes the broadcast batch dimensions,
                          without it the operand is the same for the whole batch */
    int kind;          /* enum op_kind */
    int flags;         /* enum op_flag */
    int if_given;      /* output: present only when input if_given - 1 is given (0: always) */
} op_spec;

typedef struct call call_t;

typedef struct {
    int batched, nd;
    npy_intp dim[MAXCORE]; /* >= 0 a fixed size, < 0 symbol -(dim + 1) */
} core_t;

typedef struct {
    const char *name;
    const char *summary;  /* first line of the docstring after the signature */
    op_spec op[MAXOP];    /* inputs in the API's order (optional ones last), then outputs */
    char inner;           /* symbol made the innermost batch dimension, one item each (the
                             vertex V of skinning), or 0: one item = the whole core */
    char work;            /* symbol counting the work in one item (J: joints), 0 for one */
    npy_intp grain;       /* work per thread: threads start only with this much each */
    loop_fn loop[2];      /* float32, float64 */
    /* sets the exception for a status a loop returned (NULL: loops never fail) */
    void (*fail)(const call_t *c, int status);
    int scratch;          /* reals of workspace per unit of `work` that each thread's loop
                             gets in ctx->scratch (0: none), allocated once per call */
    /* filled at import from op[] (bind_init) */
    core_t core[MAXOP];
    int nin, nreq, nout;  /* inputs, required inputs, outputs */
} kernel_t;

/* ------------------------------------------------------------------ one call */

struct loop_ctx {
    const npy_intp *sym;            /* sizes of the symbols, sym[SYM('J')] */
    npy_intp item;                  /* flat batch index of the run's first item */
    const int32_t *parents, *order; /* OP_PARENTS */
    void *scratch;                  /* kernel_t.scratch reals of the compute dtype */
    int itype;                      /* OP_JOINTS: enum sk_index_type */
    size_t bad;
};

struct call {
    const kernel_t *k;
    int nin, nout;                /* inputs; outputs present in this call */
    PyObject *obj[MAXOP];         /* as passed (borrowed), NULL when None or absent */
    PyArrayObject *arr[MAXOP];    /* converted operands and the outputs (owned) */
    PyArrayObject *given[MAXOP];  /* integer operands as given, for messages (owned) */
    const char *name[MAXOP];      /* names in messages (outputs: out or out[i]) */
    const core_t *core[MAXOP];    /* core shape of each operand (in k->core) */
    npy_intp sym[NSYM];           /* bound symbol sizes, -1 unbound */
    int typenum;                  /* NPY_FLOAT or NPY_DOUBLE */
    int bnd;                      /* broadcast batch shape (without the inner symbol) */
    npy_intp bshape[NPY_MAXDIMS + 1];
    int threads;
    int32_t *order;               /* OP_PARENTS: topological order, then scratch (PyMem) */
    loop_ctx ctx;
};

/* bind_args.c */
int input_named(const kernel_t *k, const char *name);
PyArrayObject *as_array(PyObject *obj);
extern PyObject *from_dlpack;

/* bind_operands.c */
int bind_init(kernel_t *k, size_t n);
PyObject *call_kernel(const kernel_t *k, PyObject *const *args, Py_ssize_t nargs);
void fmt_shape(char *buf, size_t cap, int nd, const npy_intp *d);

/* bind_indices.c */
int read_indices(call_t *c, int i);
int order_parents(call_t *c, int i);
void fail_joint_index(const call_t *c, int status);

/* bind_run.c */
int parse_threads(PyObject *obj, int *threads);
extern int default_threads;
int run_call(call_t *c);
int thread_count(int threads, npy_intp work, npy_intp grain);
void parallel(int parts, void *(*fn)(void *), char *args, size_t size);

/* bind_table.c */
extern kernel_t kernels[];
extern const size_t n_kernels;

/* bind_clip.c */
PyObject *py_sample_channels(PyObject *self, PyObject *args);
PyObject *py_prepare_clip(PyObject *self, PyObject *table);
PyObject *py_fill_rows(PyObject *self, PyObject *args);
int add_clip_player(PyObject *m);
int add_compressed_types(PyObject *m);
int check_array(PyObject *obj, const char *what, const char *name, int type, int write);

/* bind_compress.c */

/* bind_encode.c */
PyObject *py_quantize_codes(PyObject *self, PyObject *args);
PyObject *py_unit_rotations(PyObject *self, PyObject *args);
PyObject *py_rate_layout(PyObject *self, PyObject *args);
PyObject *py_track_bounds(PyObject *self, PyObject *args);
PyObject *py_rate_bounds(PyObject *self, PyObject *args);

/* bind_check.c */
PyObject *py_shell_check(PyObject *self, PyObject *args);
PyObject *py_shell_refine(PyObject *self, PyObject *args);
PyObject *py_subtree_reach(PyObject *self, PyObject *args);

/* ---------------------------------------------------------------- FBX (bind_fbx.c) */

PyObject *py_fbx_read(PyObject *self, PyObject *args);
PyObject *ufbx_version(PyObject *self, PyObject *unused);

#endif /* SK_BINDING_H */
