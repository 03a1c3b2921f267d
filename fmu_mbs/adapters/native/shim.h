/* shim.h: what the parts of the FMU binary share (fmi2_shim.c describes the binary; each .c file is one part:
 * instances.c, python_locate.c, python_start.c, resource_uri.c, fmi2_shim.c, fmi2_states.c, fmi2_unsupported.c).
 * Functions declared here have hidden visibility (-fvisibility=hidden): only the fmi2 functions are exported. */
#ifndef FMU_MBS_SHIM_H
#define FMU_MBS_SHIM_H

#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fmi2Functions.h"
#include "fmu_config.h"

extern char **environ;

/* ---- the Python C API, looked up at run time ---- */
typedef struct _object PyObject;
typedef ssize_t Py_ssize_t;
typedef PyObject *(*PyCFunction)(PyObject *, PyObject *);
typedef struct {
    const char *ml_name;
    PyCFunction ml_meth;
    int ml_flags;
    const char *ml_doc;
} PyMethodDef;
#define METH_VARARGS 0x0001
#define PyBUF_READ 0x100
#define PyBUF_WRITE 0x200

typedef struct {
    int (*IsInitialized)(void);
    void (*InitializeEx)(int);
    void *(*EvalSaveThread)(void);
    int (*GILEnsure)(void);
    void (*GILRelease)(int);
    PyObject *(*ImportModule)(const char *);
    PyObject *(*GetAttrString)(PyObject *, const char *);
    PyObject *(*CallFunction)(PyObject *, const char *, ...);
    long (*LongAsLong)(PyObject *);
    double (*FloatAsDouble)(PyObject *);
    void (*DecRef)(PyObject *);
    void (*IncRef)(PyObject *);
    PyObject *(*ErrOccurred)(void);
    void (*ErrFetch)(PyObject **, PyObject **, PyObject **);
    void (*ErrClear)(void);
    PyObject *(*ObjectStr)(PyObject *);
    PyObject *(*UnicodeAsUTF8String)(PyObject *);
    int (*BytesAsStringAndSize)(PyObject *, char **, Py_ssize_t *);
    PyObject *(*MemoryViewFromMemory)(char *, Py_ssize_t, int);
    PyObject *(*UnicodeDecodeFSDefault)(const char *);
    PyObject *(*CFunctionNewEx)(PyMethodDef *, PyObject *, PyObject *);
    int (*ArgParseTuple)(PyObject *, const char *, ...);
    PyObject *(*LongFromVoidPtr)(void *);
    void *(*LongAsVoidPtr)(PyObject *);
    PyObject *(*DictNew)(void);
    PyObject *(*DictGetItemString)(PyObject *, const char *);
    PyObject *None;
} PyApi;


extern PyApi py;   /* filled by resolve_api (python_start.c) */

/* ---- instances and states ---- */
typedef struct State {
    struct State *next;
    PyObject *obj;            /* the bridge's state object */
    PyObject *bytes;          /* its serialization, kept between fmi2SerializedFMUstateSize and fmi2SerializeFMUstate */
} State;

/* step_lane.c: the doStep / fmi2SetReal / fmi2GetReal path that needs no bridge call */
typedef struct {
    int armed;
    PyObject *kernel, *table, *layout;   /* kernel(table, layout, n_steps, h, t_end) -> code (0: done) */
    double *t_now;            /* the integrator's time (s) */
    double *last_time;        /* the bridge's last successful time (s) */
    double step;              /* nominal substep (s) */
    long capacity;            /* substeps the kernel's report holds */
    size_t n_vars;            /* value references 0 .. n_vars - 1 */
    double **real_in, **real_out;   /* per value reference: the input it sets / the output it reads, or NULL */
} StepLane;

typedef struct Component {
    struct Component *next;
    char *name;
    fmi2CallbackLogger logger;
    fmi2ComponentEnvironment env;
    int lost;                 /* after fmi2Fatal: the Python instance is released, every call returns fmi2Error */
    PyObject *inst, *log_fn, *arm_fn;
    State *states;
    StepLane lane;
} Component;

#define LOG_ERROR(comp, ...) log_to((comp)->logger, (comp)->env, (comp)->name, fmi2Error, "logStatusError", __VA_ARGS__)

/* ---- locating Python ---- */
typedef struct {
    char origin[512];         /* where the choice came from, for messages */
    char executable[4096], libpython[4096], home[4096], stdlib[4096], version[32];
    char sitedirs[16384];     /* '\n'-separated */
} PyLocation;

/* instances.c: the live instances, logging, calls into the bridge */
extern pthread_mutex_t registry_lock;
extern Component *registry;
int component_is_live(const void *c);
void log_to(fmi2CallbackLogger logger, fmi2ComponentEnvironment env, const char *instance, fmi2Status status,
            const char *category, const char *fmt, ...);
PyObject *py_log(PyObject *self, PyObject *args);
extern PyMethodDef log_def;
fmi2Status status_of(Component *c, PyObject *r, const char *fn);
void lose(Component *comp);
PyObject *memview(const void *p, size_t bytes, int writable);

/* python_locate.c: which Python to bring up */
int is_file(const char *p);
int is_dir(const char *p);
void binary_dir(char *out, size_t n);
int locate_python(PyLocation *loc, char *err, size_t nerr);

/* python_start.c: the C API looked up at run time, the interpreter started once per process */
const char *python_exception(char *buf, size_t n);
int ensure_python(char *err, size_t nerr);

/* step_lane.c: the lane (armed by the bridge through arm_lane_def; GIL held in every function) */
extern PyMethodDef arm_lane_def;
void lane_off(Component *comp);
void lane_free(Component *comp);
int lane_set_real(Component *comp, const fmi2ValueReference vr[], size_t nvr, const fmi2Real value[]);
int lane_get_real(Component *comp, const fmi2ValueReference vr[], size_t nvr, fmi2Real value[]);
int lane_do_step(Component *comp, double t, double H, long *code);

/* resource_uri.c: fmuResourceLocation (RFC 3986 file URI) -> folder */
int resources_dir(const char *uri, char *out, size_t n, char *err, size_t nerr);


/* Every FMI function on an instance starts with ENTER (the pointer is a live instance, not lost; then the GIL; the
 * step lane disarmed) or, for calls that read only or take the lane themselves, ENTER_KEEP_LANE; it leaves through
 * LEAVE (an fmi2Fatal from the bridge loses the instance). */
#define ENTER(fn)                                                                                                  \
    ENTER_KEEP_LANE(fn);                                                                                           \
    lane_off(comp)

#define ENTER_KEEP_LANE(fn)                                                                                        \
    static const char *const fn_name = fn;                                                                        \
    Component *comp = (Component *)c;                                                                              \
    if (!component_is_live(c)) {                                                                                   \
        fprintf(stderr, "[fmu-mbs] %s called with %s instance pointer %p: fmi2Error\n", fn_name,                    \
                c ? "an unknown or freed" : "a NULL", (void *)c);                                                  \
        return fmi2Error;                                                                                          \
    }                                                                                                              \
    if (comp->lost) {                                                                                              \
        LOG_ERROR(comp, "%s refused: this instance was lost after an earlier fmi2Fatal; only fmi2FreeInstance is " \
                  "possible", fn_name);                                                                            \
        return fmi2Error;                                                                                          \
    }                                                                                                              \
    int gil = py.GILEnsure()

#define LEAVE(status)                                                                                              \
    do {                                                                                                           \
        fmi2Status st_ = (status);                                                                                 \
        if (st_ == fmi2Fatal) lose(comp);                                                                          \
        py.GILRelease(gil);                                                                                        \
        return st_;                                                                                                \
    } while (0)

/* inst.<name>(...) -> new reference or NULL (exception pending) */
#define CALL(name, ...)                                                                                            \
    ({                                                                                                             \
        PyObject *m_ = py.GetAttrString(comp->inst, name);                                                        \
        PyObject *r_ = m_ ? py.CallFunction(m_, __VA_ARGS__) : NULL;                                               \
        if (m_) py.DecRef(m_);                                                                                     \
        r_;                                                                                                        \
    })

#endif
