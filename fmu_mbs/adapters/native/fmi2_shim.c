/* fmi2_shim.c: the binary of every fmu-mbs FMU on Linux (FMI 2.0, co-simulation only).
 *
 * Compiled by fmu_mbs/adapters/fmu_build.py for each FMU, with fmu_config.h generated next to it (the FMU's GUID,
 * its entry module, and the Python it was built with: libpython, home, standard library, site folders). It
 *
 * - brings up that Python itself: loads libpython with RTLD_GLOBAL (so numpy's extension modules find the C API),
 *   sets the home for the interpreter's start and adds the site folders (a virtual environment's too, with .pth
 *   files). The Python can be chosen at run time: $FMU_MBS_PYTHON, or a file fmu-mbs-python.txt next to this
 *   binary or in the FMU's root folder, naming a Python executable (asked for its libpython, home and folders).
 *   In a process that already runs Python (fmpy, a Python master) that interpreter is used.
 * - never takes the host down: every call checks its instance pointer against the live instances (by value; freed
 *   instances are never dereferenced) and its state pointers against the instance's states; the FMI state machine,
 *   variable types and causalities are checked in Python (adapters/fmi_bridge.py); failures return fmi2Error (or
 *   fmi2Discard for a failed step) with the reason in the FMI log; fmi2Fatal only when the Python instance is lost,
 *   after which every call on it returns fmi2Error.
 * - decodes fmuResourceLocation per RFC 3986 (file: URI, percent-encoded bytes), checks the GUID and refuses a
 *   Model Exchange instantiation.
 *
 * No Python headers are used: the C-API functions (all in the stable ABI) are looked up with dlsym, so the binary
 * has no undefined symbols and loads in any process. The interpreter is never finalized (nothing runs at exit).
 */
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

/* ------------------------------------------------------------------------------------------------------------
 * the Python C API, looked up at run time
 * ---------------------------------------------------------------------------------------------------------- */
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

static struct {
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
} py;

/* ------------------------------------------------------------------------------------------------------------
 * instances and states
 * ---------------------------------------------------------------------------------------------------------- */
typedef struct State {
    struct State *next;
    PyObject *obj;            /* the bridge's state object */
    PyObject *bytes;          /* its serialization, kept between fmi2SerializedFMUstateSize and fmi2SerializeFMUstate */
} State;

typedef struct Component {
    struct Component *next;
    char *name;
    fmi2CallbackLogger logger;
    fmi2ComponentEnvironment env;
    int lost;                 /* after fmi2Fatal: the Python instance is released, every call returns fmi2Error */
    PyObject *inst, *log_fn;
    State *states;
} Component;

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static Component *registry = NULL;

static int component_is_live(const void *c) {
    int found = 0;
    pthread_mutex_lock(&registry_lock);
    for (Component *p = registry; p && !found; p = p->next) found = (const void *)p == c;
    pthread_mutex_unlock(&registry_lock);
    return found;
}

/* Log through the host's logger (or stderr when there is none); the text is passed as it is (no printf format). */
static void log_to(fmi2CallbackLogger logger, fmi2ComponentEnvironment env, const char *instance, fmi2Status status,
                   const char *category, const char *fmt, ...) {
    char msg[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (logger) logger(env, instance ? instance : "?", status, category, msg);
    else fprintf(stderr, "[fmu-mbs %s] %s\n", instance ? instance : "?", msg);
}

#define LOG_ERROR(comp, ...) log_to((comp)->logger, (comp)->env, (comp)->name, fmi2Error, "logStatusError", __VA_ARGS__)

/* ------------------------------------------------------------------------------------------------------------
 * locating Python
 * ---------------------------------------------------------------------------------------------------------- */
typedef struct {
    char origin[512];         /* where the choice came from, for messages */
    char executable[4096], libpython[4096], home[4096], stdlib[4096], version[32];
    char sitedirs[16384];     /* '\n'-separated */
} PyLocation;

static int is_file(const char *p) {
    struct stat st;
    return p[0] && stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static int is_dir(const char *p) {
    struct stat st;
    return p[0] && stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The folder of this binary (binaries/linux64 of the extracted FMU), or "" if unknown. */
static void binary_dir(char *out, size_t n) {
    Dl_info info;
    out[0] = '\0';
    if (dladdr((void *)&binary_dir, &info) && info.dli_fname) {
        char *real = realpath(info.dli_fname, NULL);
        if (real) {
            char *slash = strrchr(real, '/');
            if (slash) *slash = '\0';
            snprintf(out, n, "%s", real);
            free(real);
        }
    }
}

/* First non-empty, non-comment line of a file, trimmed; 0 if there is none. */
static int read_first_line(const char *path, char *out, size_t n) {
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    char line[4096];
    int found = 0;
    while (!found && fgets(line, sizeof line, f)) {
        char *s = line, *e;
        while (*s == ' ' || *s == '\t') s++;
        e = s + strlen(s);
        while (e > s && strchr(" \t\r\n", e[-1])) *--e = '\0';
        if (*s && *s != '#') {
            snprintf(out, n, "%s", s);
            found = 1;
        }
    }
    fclose(f);
    return found;
}

/* Ask a Python executable where its libpython, home, standard library and site folders are. 0 on success. */
static int query_python(const char *exe, PyLocation *loc, char *err, size_t nerr) {
    int fd[2];
    if (!is_file(exe)) {
        snprintf(err, nerr, "no Python executable at '%s'", exe);
        return -1;
    }
    if (pipe(fd)) {
        snprintf(err, nerr, "pipe failed: %s", strerror(errno));
        return -1;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fd[1], 1);
    posix_spawn_file_actions_addclose(&fa, fd[0]);
    char *argv[] = {(char *)exe, "-c", (char *)PY_QUERY, NULL};
    pid_t pid;
    int rc = posix_spawn(&pid, exe, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fd[1]);
    if (rc) {
        close(fd[0]);
        snprintf(err, nerr, "cannot run '%s': %s", exe, strerror(rc));
        return -1;
    }
    char buf[32768];
    size_t len = 0;
    ssize_t got;
    while ((got = read(fd[0], buf + len, sizeof buf - 1 - len)) > 0) len += (size_t)got;
    close(fd[0]);
    buf[len] = '\0';
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status)) {
        snprintf(err, nerr, "'%s' failed to report its installation (exit status %d)", exe, WEXITSTATUS(status));
        return -1;
    }
    loc->sitedirs[0] = '\0';
    snprintf(loc->executable, sizeof loc->executable, "%s", exe);
    for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
        char *tab = strchr(line, '\t');
        if (!tab) continue;
        *tab++ = '\0';
        if (!strcmp(line, "libpython")) snprintf(loc->libpython, sizeof loc->libpython, "%s", tab);
        else if (!strcmp(line, "home")) snprintf(loc->home, sizeof loc->home, "%s", tab);
        else if (!strcmp(line, "stdlib")) snprintf(loc->stdlib, sizeof loc->stdlib, "%s", tab);
        else if (!strcmp(line, "version")) snprintf(loc->version, sizeof loc->version, "%s", tab);
        else if (!strcmp(line, "sitedir")) {
            size_t used = strlen(loc->sitedirs);
            snprintf(loc->sitedirs + used, sizeof loc->sitedirs - used, "%s%s", used ? "\n" : "", tab);
        }
    }
    return 0;
}

/* The Python to use: $FMU_MBS_PYTHON, else fmu-mbs-python.txt next to the binary or in the FMU root, else the
 * one recorded at build time. 0 on success, else err says why. */
static int locate_python(PyLocation *loc, char *err, size_t nerr) {
    memset(loc, 0, sizeof *loc);
    const char *env = getenv("FMU_MBS_PYTHON");
    if (env && *env) {
        snprintf(loc->origin, sizeof loc->origin, "$FMU_MBS_PYTHON (%s)", env);
        return query_python(env, loc, err, nerr);
    }
    char dir[4096], path[4400], exe[4096];
    binary_dir(dir, sizeof dir);
    const char *candidates[] = {"%s/fmu-mbs-python.txt", "%s/../../fmu-mbs-python.txt"};
    for (int i = 0; dir[0] && i < 2; i++) {
        snprintf(path, sizeof path, candidates[i], dir);
        if (read_first_line(path, exe, sizeof exe)) {
            snprintf(loc->origin, sizeof loc->origin, "%s (%s)", path, exe);
            return query_python(exe, loc, err, nerr);
        }
    }
    snprintf(loc->origin, sizeof loc->origin, "recorded when the FMU was built (%s)", PY_EXECUTABLE);
    snprintf(loc->executable, sizeof loc->executable, "%s", PY_EXECUTABLE);
    snprintf(loc->libpython, sizeof loc->libpython, "%s", PY_LIBPYTHON);
    snprintf(loc->home, sizeof loc->home, "%s", PY_HOME);
    snprintf(loc->stdlib, sizeof loc->stdlib, "%s", PY_STDLIB);
    snprintf(loc->version, sizeof loc->version, "%s", PY_VERSION);
    snprintf(loc->sitedirs, sizeof loc->sitedirs, "%s", PY_SITEDIRS);
    return 0;
}

/* ------------------------------------------------------------------------------------------------------------
 * bringing Python up (once per process)
 * ---------------------------------------------------------------------------------------------------------- */
static pthread_mutex_t python_lock = PTHREAD_MUTEX_INITIALIZER;
static int python_state = 0;          /* 0 not tried, 1 ready, -1 failed (python_error says why) */
static char python_error[8192];

static int resolve_api(void *lib, char *err, size_t nerr) {
#define SYM(field, name)                                                                                           \
    do {                                                                                                           \
        *(void **)&py.field = dlsym(lib, name);                                                                    \
        if (!py.field) {                                                                                           \
            snprintf(err, nerr, "the Python library lacks the C-API function %s", name);                          \
            return -1;                                                                                             \
        }                                                                                                          \
    } while (0)
    SYM(IsInitialized, "Py_IsInitialized");
    SYM(InitializeEx, "Py_InitializeEx");
    SYM(EvalSaveThread, "PyEval_SaveThread");
    SYM(GILEnsure, "PyGILState_Ensure");
    SYM(GILRelease, "PyGILState_Release");
    SYM(ImportModule, "PyImport_ImportModule");
    SYM(GetAttrString, "PyObject_GetAttrString");
    SYM(CallFunction, "PyObject_CallFunction");
    SYM(LongAsLong, "PyLong_AsLong");
    SYM(FloatAsDouble, "PyFloat_AsDouble");
    SYM(DecRef, "Py_DecRef");
    SYM(IncRef, "Py_IncRef");
    SYM(ErrOccurred, "PyErr_Occurred");
    SYM(ErrFetch, "PyErr_Fetch");
    SYM(ErrClear, "PyErr_Clear");
    SYM(ObjectStr, "PyObject_Str");
    SYM(UnicodeAsUTF8String, "PyUnicode_AsUTF8String");
    SYM(BytesAsStringAndSize, "PyBytes_AsStringAndSize");
    SYM(MemoryViewFromMemory, "PyMemoryView_FromMemory");
    SYM(UnicodeDecodeFSDefault, "PyUnicode_DecodeFSDefault");
    SYM(CFunctionNewEx, "PyCFunction_NewEx");
    SYM(ArgParseTuple, "PyArg_ParseTuple");
    SYM(LongFromVoidPtr, "PyLong_FromVoidPtr");
    SYM(LongAsVoidPtr, "PyLong_AsVoidPtr");
    SYM(DictNew, "PyDict_New");
    SYM(DictGetItemString, "PyDict_GetItemString");
    SYM(None, "_Py_NoneStruct");
#undef SYM
    return 0;
}

/* The pending Python exception as text (consumed), into buf. */
static const char *python_exception(char *buf, size_t n) {
    PyObject *type = NULL, *value = NULL, *tb = NULL;
    snprintf(buf, n, "unknown Python error");
    py.ErrFetch(&type, &value, &tb);
    PyObject *what = value ? value : type;
    PyObject *s = what ? py.ObjectStr(what) : NULL;
    PyObject *b = s ? py.UnicodeAsUTF8String(s) : NULL;
    char *text;
    Py_ssize_t len;
    if (b && py.BytesAsStringAndSize(b, &text, &len) == 0) snprintf(buf, n, "%.*s", (int)len, text);
    if (type) {
        PyObject *name = py.GetAttrString(type, "__name__");
        PyObject *nb = name ? py.UnicodeAsUTF8String(name) : NULL;
        if (nb && py.BytesAsStringAndSize(nb, &text, &len) == 0) {
            char tmp[4096];
            snprintf(tmp, sizeof tmp, "%.*s: %s", (int)len, text, buf);
            snprintf(buf, n, "%s", tmp);
        }
        if (nb) py.DecRef(nb);
        if (name) py.DecRef(name);
    }
    py.ErrClear();
    if (b) py.DecRef(b);
    if (s) py.DecRef(s);
    if (type) py.DecRef(type);
    if (value) py.DecRef(value);
    if (tb) py.DecRef(tb);
    return buf;
}

/* With the GIL of a freshly started interpreter: sys.executable, sys.argv and the site folders of loc. */
static int bootstrap(const PyLocation *loc, char *err, size_t nerr) {
    PyObject *builtins = py.ImportModule("builtins");
    PyObject *exec = builtins ? py.GetAttrString(builtins, "exec") : NULL;
    PyObject *globals = py.DictNew();
    PyObject *r = exec && globals ? py.CallFunction(exec, "sO", PY_SUPPORT, globals) : NULL;
    PyObject *boot = r ? py.DictGetItemString(globals, "boot") : NULL;   /* borrowed */
    PyObject *done = boot ? py.CallFunction(boot, "ss", loc->executable, loc->sitedirs) : NULL;
    int ok = done != NULL;
    if (!ok) {
        char text[4096];
        snprintf(err, nerr, "setting up the embedded Python failed: %s",
                 py.ErrOccurred() ? python_exception(text, sizeof text) : "no details");
    }
    if (done) py.DecRef(done);
    if (r) py.DecRef(r);
    if (globals) py.DecRef(globals);
    if (exec) py.DecRef(exec);
    if (builtins) py.DecRef(builtins);
    return ok ? 0 : -1;
}

static int start_python(char *err, size_t nerr) {
    /* a process that runs Python already (a Python host, or libpython preloaded) */
    void *self = dlopen(NULL, RTLD_NOW);
    if (dlsym(self, "Py_IsInitialized")) {
        if (resolve_api(self, err, nerr)) return -1;
        if (py.IsInitialized()) return 0;
    }
    PyLocation loc;
    char why[4096];
    if (locate_python(&loc, why, sizeof why)) {
        snprintf(err, nerr, "cannot use the Python of %s: %s", loc.origin, why);
        return -1;
    }
    if (!loc.libpython[0] || !is_file(loc.libpython)) {
        snprintf(err, nerr, "the Python of %s has no shared libpython%s%s (a Python built with --enable-shared is "
                 "needed; set FMU_MBS_PYTHON to the executable of a Python with numpy, scipy and numba)",
                 loc.origin, loc.libpython[0] ? " at " : "", loc.libpython);
        return -1;
    }
    void *lib = dlopen(loc.libpython, RTLD_NOW | RTLD_GLOBAL);
    if (!lib) {
        snprintf(err, nerr, "cannot load libpython '%s' (Python of %s): %s", loc.libpython, loc.origin, dlerror());
        return -1;
    }
    if (resolve_api(lib, err, nerr)) return -1;
    if (!py.IsInitialized()) {
        char encodings[4200];
        snprintf(encodings, sizeof encodings, "%s/encodings/__init__.py", loc.stdlib);
        if (!is_file(encodings)) {
            snprintf(err, nerr, "the standard library of Python %s is missing: no '%s' (Python of %s, home '%s')",
                     loc.version, encodings, loc.origin, loc.home);
            return -1;
        }
        /* the interpreter reads its home from the environment at start; the host's value is put back after */
        char *saved = getenv("PYTHONHOME") ? strdup(getenv("PYTHONHOME")) : NULL;
        setenv("PYTHONHOME", loc.home, 1);
        py.InitializeEx(0);        /* 0: leave the host's signal handlers alone */
        if (saved) {
            setenv("PYTHONHOME", saved, 1);
            free(saved);
        } else {
            unsetenv("PYTHONHOME");
        }
        if (!py.IsInitialized()) {
            snprintf(err, nerr, "Python %s (%s) did not start", loc.version, loc.libpython);
            return -1;
        }
        int rc = bootstrap(&loc, err, nerr);
        py.EvalSaveThread();       /* release the GIL: every FMI call takes it with PyGILState_Ensure */
        if (rc) return -1;
    }
    return 0;
}

static int ensure_python(char *err, size_t nerr) {
    pthread_mutex_lock(&python_lock);
    if (python_state == 0) {
        /* Python keeps pointers into this library (the logger function): it must stay loaded after dlclose */
        Dl_info info;
        if (dladdr((void *)&ensure_python, &info) && info.dli_fname) dlopen(info.dli_fname, RTLD_NOW | RTLD_NODELETE);
        python_state = start_python(python_error, sizeof python_error) ? -1 : 1;
    }
    if (python_state < 0) snprintf(err, nerr, "%s", python_error);
    int state = python_state;
    pthread_mutex_unlock(&python_lock);
    return state > 0 ? 0 : -1;
}

/* ------------------------------------------------------------------------------------------------------------
 * fmuResourceLocation: RFC 3986 file URI -> folder
 * ---------------------------------------------------------------------------------------------------------- */
static int hexval(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Decode the path of a file URI into out; strict: query and fragment end the path (RFC 3986), lenient: '?' and
 * '#' are kept (hosts that do not encode them). 0 on success, else err says why. */
static int uri_to_path(const char *uri, int strict, char *out, size_t n, char *err, size_t nerr) {
    const char *p = uri;
    if (strncasecmp(p, "file:", 5)) {
        snprintf(err, nerr, "not a file: URI");
        return -1;
    }
    p += 5;
    if (p[0] == '/' && p[1] == '/') {              /* authority: empty or localhost */
        p += 2;
        const char *slash = strchr(p, '/');
        if (!slash) {
            snprintf(err, nerr, "no path after the authority");
            return -1;
        }
        size_t alen = (size_t)(slash - p);
        if (alen && !(alen == 9 && !strncasecmp(p, "localhost", 9))) {
            snprintf(err, nerr, "host '%.*s' is not this machine", (int)alen, p);
            return -1;
        }
        p = slash;
    }
    if (*p != '/') {
        snprintf(err, nerr, "the path is not absolute");
        return -1;
    }
    size_t k = 0;
    for (; *p && !(strict && (*p == '?' || *p == '#')); p++) {
        unsigned char c = (unsigned char)*p;
        if (c == '%') {
            int hi = hexval(p[1]), lo = hi < 0 ? -1 : hexval(p[2]);
            if (hi < 0 || lo < 0) {
                snprintf(err, nerr, "'%%' not followed by two hexadecimal digits");
                return -1;
            }
            c = (unsigned char)(hi * 16 + lo);
            if (c == 0) {
                snprintf(err, nerr, "an encoded NUL byte (%%00)");
                return -1;
            }
            p += 2;
        }
        if (k + 1 >= n) {
            snprintf(err, nerr, "path too long");
            return -1;
        }
        out[k++] = (char)c;
    }
    out[k] = '\0';
    while (k > 1 && out[k - 1] == '/') out[--k] = '\0';
    return 0;
}

/* The resources folder: fmuResourceLocation decoded, or (when the host passes none) the FMU's own. */
static int resources_dir(const char *uri, char *out, size_t n, char *err, size_t nerr) {
    if (!uri || !*uri) {
        char dir[4096];
        binary_dir(dir, sizeof dir);
        snprintf(out, n, "%s/../../resources", dir);
        if (dir[0] && is_dir(out)) return 0;
        snprintf(err, nerr, "no fmuResourceLocation given and no resources folder next to the binary");
        return -1;
    }
    char why[512];
    if (uri_to_path(uri, 1, out, n, why, sizeof why)) {
        snprintf(err, nerr, "fmuResourceLocation '%s' is not a usable file URI: %s", uri, why);
        return -1;
    }
    if (is_dir(out)) return 0;
    if ((strchr(uri, '#') || strchr(uri, '?')) && !uri_to_path(uri, 0, out, n, why, sizeof why) && is_dir(out))
        return 0;
    snprintf(err, nerr, "fmuResourceLocation '%s' names no folder (decoded: '%s')", uri, out);
    return -1;
}

/* ------------------------------------------------------------------------------------------------------------
 * calls into the bridge
 * ---------------------------------------------------------------------------------------------------------- */

/* The logger handed to Python: log(status, category: bytes, message: bytes); self holds the component. */
static PyObject *py_log(PyObject *self, PyObject *args) {
    int status;
    const char *category, *message;
    if (!py.ArgParseTuple(args, "iyy", &status, &category, &message)) return NULL;
    Component *c = (Component *)py.LongAsVoidPtr(self);
    if (c && component_is_live(c) && c->logger) c->logger(c->env, c->name, (fmi2Status)status, category, message);
    py.IncRef(py.None);   /* Py_RETURN_NONE: a new reference to None */
    return py.None;
}

static PyMethodDef log_def = {"log", py_log, METH_VARARGS, "FMI logger of one instance"};

/* Status from a bridge call's result (an int); an exception or another type is an error with its text logged. */
static fmi2Status status_of(Component *c, PyObject *r, const char *fn) {
    fmi2Status s;
    if (!r) {
        char text[4096];
        LOG_ERROR(c, "%s: internal error in the FMU's Python: %s", fn, python_exception(text, sizeof text));
        return fmi2Error;
    }
    long v = py.LongAsLong(r);
    py.DecRef(r);
    if (v == -1 && py.ErrOccurred()) {
        char text[4096];
        LOG_ERROR(c, "%s: internal error in the FMU's Python: %s", fn, python_exception(text, sizeof text));
        return fmi2Error;
    }
    s = (v >= fmi2OK && v <= fmi2Fatal) ? (fmi2Status)v : fmi2Error;
    return s;
}


/* After fmi2Fatal: release the Python instance and its states (GIL held); the component stays registered so that
 * later calls find it and return fmi2Error, until fmi2FreeInstance. */
static void lose(Component *comp) {
    for (State *s = comp->states, *next; s; s = next) {
        next = s->next;
        if (s->obj) py.DecRef(s->obj);
        if (s->bytes) py.DecRef(s->bytes);
        free(s);
    }
    comp->states = NULL;
    if (comp->inst) py.DecRef(comp->inst);
    comp->inst = NULL;
    comp->lost = 1;
}

/* Every FMI function on an instance starts with ENTER (the pointer is a live instance, not lost; then the GIL) and
 * leaves through LEAVE (an fmi2Fatal from the bridge loses the instance). */
#define ENTER(fn)                                                                                                  \
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

static PyObject *memview(const void *p, size_t bytes, int writable) {
    static char empty[8];
    return py.MemoryViewFromMemory(p ? (char *)p : empty, (Py_ssize_t)bytes, writable ? PyBUF_WRITE : PyBUF_READ);
}

/* ------------------------------------------------------------------------------------------------------------
 * FMI functions
 * ---------------------------------------------------------------------------------------------------------- */
const char *fmi2GetTypesPlatform(void) { return fmi2TypesPlatform; }
const char *fmi2GetVersion(void) { return fmi2Version; }

static PyObject *loader = NULL;   /* load(resources, module, instance_name, visible, logging_on, log) */

static int make_loader(char *err, size_t nerr) {
    if (loader) return 0;
    PyObject *builtins = py.ImportModule("builtins");
    PyObject *exec = builtins ? py.GetAttrString(builtins, "exec") : NULL;
    PyObject *globals = py.DictNew();
    PyObject *r = exec && globals ? py.CallFunction(exec, "sO", PY_SUPPORT, globals) : NULL;
    if (r) {
        loader = py.DictGetItemString(globals, "load");   /* borrowed; globals is kept alive below */
        py.DecRef(r);
    } else {
        char text[4096];
        snprintf(err, nerr, "internal error in the FMU's loader: %s", python_exception(text, sizeof text));
        if (globals) py.DecRef(globals);
        globals = NULL;
    }
    if (exec) py.DecRef(exec);
    if (builtins) py.DecRef(builtins);
    return loader ? 0 : -1;
}

fmi2Component fmi2Instantiate(fmi2String instanceName, fmi2Type fmuType, fmi2String fmuGUID,
                              fmi2String fmuResourceLocation, const fmi2CallbackFunctions *functions,
                              fmi2Boolean visible, fmi2Boolean loggingOn) {
    fmi2CallbackLogger logger = functions ? functions->logger : NULL;
    fmi2ComponentEnvironment env = functions ? functions->componentEnvironment : NULL;
    const char *name = instanceName && *instanceName ? instanceName : "?";
#define FAIL(...)                                                                                                  \
    do {                                                                                                           \
        log_to(logger, env, name, fmi2Error, "logStatusError", __VA_ARGS__);                                      \
        return NULL;                                                                                               \
    } while (0)
    if (!instanceName || !*instanceName) FAIL("fmi2Instantiate: the instance name must be a non-empty string");
    if (fmuType != fmi2CoSimulation)
        FAIL("fmi2Instantiate: FMU '%s' supports Co-Simulation only; fmuType %d (%s) refused", FMU_MODEL_IDENTIFIER,
             (int)fmuType, fmuType == fmi2ModelExchange ? "Model Exchange" : "unknown");
    if (!fmuGUID || strcmp(fmuGUID, FMU_GUID))
        FAIL("fmi2Instantiate: GUID '%s' does not match this FMU's '%s' (the modelDescription.xml of another FMU or "
             "of another build?)", fmuGUID ? fmuGUID : "(null)", FMU_GUID);
    char resources[8192], err[8192];
    if (resources_dir(fmuResourceLocation, resources, sizeof resources, err, sizeof err))
        FAIL("fmi2Instantiate: %s", err);
    if (ensure_python(err, sizeof err))
        FAIL("fmi2Instantiate: FMU '%s' cannot start Python: %s", FMU_MODEL_IDENTIFIER, err);

    Component *comp = calloc(1, sizeof *comp);
    char *copy = strdup(instanceName);
    if (!comp || !copy) {
        free(comp);
        free(copy);
        FAIL("fmi2Instantiate: out of memory");
    }
    comp->name = copy;
    comp->logger = logger;
    comp->env = env;
    pthread_mutex_lock(&registry_lock);   /* registered first, so that the bridge can log through it */
    comp->next = registry;
    registry = comp;
    pthread_mutex_unlock(&registry_lock);

    int gil = py.GILEnsure();
    err[0] = '\0';
    PyObject *inst = NULL;
    if (!make_loader(err, sizeof err)) {
        PyObject *self = py.LongFromVoidPtr(comp);
        comp->log_fn = self ? py.CFunctionNewEx(&log_def, self, NULL) : NULL;
        if (self) py.DecRef(self);
        PyObject *dir = py.UnicodeDecodeFSDefault(resources);
        if (comp->log_fn && dir)
            inst = py.CallFunction(loader, "OssiiO", dir, FMU_ENTRY_MODULE, instanceName, (int)visible,
                                   (int)loggingOn, comp->log_fn);
        if (dir) py.DecRef(dir);
        if (!inst) python_exception(err, sizeof err);
        else if (inst == py.None) {
            py.DecRef(inst);
            inst = NULL;       /* the reason is logged already */
        }
    }
    if (!inst) {
        if (err[0]) log_to(logger, env, name, fmi2Error, "logStatusError", "fmi2Instantiate: %s", err);
        if (comp->log_fn) py.DecRef(comp->log_fn);
        py.GILRelease(gil);
        pthread_mutex_lock(&registry_lock);
        for (Component **p = &registry; *p; p = &(*p)->next)
            if (*p == comp) {
                *p = comp->next;
                break;
            }
        pthread_mutex_unlock(&registry_lock);
        free(comp->name);
        free(comp);
        return NULL;
    }
    comp->inst = inst;
    py.GILRelease(gil);
    return comp;
#undef FAIL
}

void fmi2FreeInstance(fmi2Component c) {
    if (!component_is_live(c)) {
        fprintf(stderr, "[fmu-mbs] fmi2FreeInstance called with %s instance pointer %p: ignored\n",
                c ? "an unknown or freed" : "a NULL", (void *)c);
        return;
    }
    Component *comp = (Component *)c;
    pthread_mutex_lock(&registry_lock);
    for (Component **p = &registry; *p; p = &(*p)->next)
        if (*p == comp) {
            *p = comp->next;
            break;
        }
    pthread_mutex_unlock(&registry_lock);
    int gil = py.GILEnsure();
    if (comp->inst) {
        PyObject *r = CALL("free", NULL);
        if (r) py.DecRef(r);
        else py.ErrClear();
    }
    lose(comp);
    if (comp->log_fn) py.DecRef(comp->log_fn);
    py.GILRelease(gil);
    free(comp->name);
    free(comp);
}

fmi2Status fmi2SetDebugLogging(fmi2Component c, fmi2Boolean loggingOn, size_t nCategories,
                               const fmi2String categories[]) {
    ENTER("fmi2SetDebugLogging");
    if (nCategories && !categories) {
        LOG_ERROR(comp, "%s: %zu categories announced but the array is NULL", fn_name, nCategories);
        LEAVE(fmi2Error);
    }
    char joined[8192];
    size_t used = 0;
    joined[0] = '\0';
    for (size_t i = 0; i < nCategories; i++) {
        if (!categories[i]) {
            LOG_ERROR(comp, "%s: category %zu is NULL", fn_name, i);
            LEAVE(fmi2Error);
        }
        used += (size_t)snprintf(joined + used, used < sizeof joined ? sizeof joined - used : 0, "%s%s",
                                 i ? "\n" : "", categories[i]);
    }
    if (used >= sizeof joined) {
        LOG_ERROR(comp, "%s: the category names are too long", fn_name);
        LEAVE(fmi2Error);
    }
    LEAVE(status_of(comp, CALL("set_debug_logging", "iy", (int)loggingOn, joined), fn_name));
}

fmi2Status fmi2SetupExperiment(fmi2Component c, fmi2Boolean toleranceDefined, fmi2Real tolerance,
                               fmi2Real startTime, fmi2Boolean stopTimeDefined, fmi2Real stopTime) {
    ENTER("fmi2SetupExperiment");
    LEAVE(status_of(comp, CALL("setup_experiment", "iddid", (int)toleranceDefined, tolerance, startTime,
                               (int)stopTimeDefined, stopTime), fn_name));
}

fmi2Status fmi2EnterInitializationMode(fmi2Component c) {
    ENTER("fmi2EnterInitializationMode");
    LEAVE(status_of(comp, CALL("enter_initialization_mode", NULL), fn_name));
}

fmi2Status fmi2ExitInitializationMode(fmi2Component c) {
    ENTER("fmi2ExitInitializationMode");
    LEAVE(status_of(comp, CALL("exit_initialization_mode", NULL), fn_name));
}

fmi2Status fmi2Terminate(fmi2Component c) {
    ENTER("fmi2Terminate");
    LEAVE(status_of(comp, CALL("terminate", NULL), fn_name));
}

fmi2Status fmi2Reset(fmi2Component c) {
    ENTER("fmi2Reset");
    LEAVE(status_of(comp, CALL("reset", NULL), fn_name));
}

/* get/set of n values: vr and value arrays as memoryviews (no copies); NULL arrays with n > 0 are refused */
#define ARRAY_CALL(fn, pyname, vr, n, value, size, writable)                                                       \
    ENTER(fn);                                                                                                     \
    if ((n) && (!(vr) || !(value))) {                                                                              \
        LOG_ERROR(comp, "%s: %zu values but %s array is NULL", fn_name, (size_t)(n), !(vr) ? "the valueReference" \
                  : "the value");                                                                                  \
        LEAVE(fmi2Error);                                                                                          \
    }                                                                                                              \
    PyObject *mv_ = memview(vr, (n) * sizeof(fmi2ValueReference), 0);                                              \
    PyObject *mval_ = memview(value, (n) * (size), writable);                                                      \
    PyObject *res_ = mv_ && mval_ ? CALL(pyname, "OO", mv_, mval_) : NULL;                                         \
    if (mv_) py.DecRef(mv_);                                                                                       \
    if (mval_) py.DecRef(mval_);                                                                                   \
    LEAVE(status_of(comp, res_, fn_name))

fmi2Status fmi2GetReal(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, fmi2Real value[]) {
    ARRAY_CALL("fmi2GetReal", "get_real", vr, nvr, value, sizeof(fmi2Real), 1);
}

fmi2Status fmi2GetInteger(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, fmi2Integer value[]) {
    ARRAY_CALL("fmi2GetInteger", "get_integer", vr, nvr, value, sizeof(fmi2Integer), 1);
}

fmi2Status fmi2GetBoolean(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, fmi2Boolean value[]) {
    ARRAY_CALL("fmi2GetBoolean", "get_boolean", vr, nvr, value, sizeof(fmi2Boolean), 1);
}

fmi2Status fmi2SetReal(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, const fmi2Real value[]) {
    ARRAY_CALL("fmi2SetReal", "set_real", vr, nvr, value, sizeof(fmi2Real), 0);
}

fmi2Status fmi2SetInteger(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, const fmi2Integer value[]) {
    ARRAY_CALL("fmi2SetInteger", "set_integer", vr, nvr, value, sizeof(fmi2Integer), 0);
}

fmi2Status fmi2SetBoolean(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, const fmi2Boolean value[]) {
    ARRAY_CALL("fmi2SetBoolean", "set_boolean", vr, nvr, value, sizeof(fmi2Boolean), 0);
}

fmi2Status fmi2GetString(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, fmi2String value[]) {
    ARRAY_CALL("fmi2GetString", "get_string", vr, nvr, value, 0, 0);
}

fmi2Status fmi2SetString(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, const fmi2String value[]) {
    ARRAY_CALL("fmi2SetString", "set_string", vr, nvr, value, 0, 0);
}

fmi2Status fmi2DoStep(fmi2Component c, fmi2Real currentCommunicationPoint, fmi2Real communicationStepSize,
                      fmi2Boolean noSetFMUStatePriorToCurrentPoint) {
    ENTER("fmi2DoStep");
    LEAVE(status_of(comp, CALL("do_step", "ddi", currentCommunicationPoint, communicationStepSize,
                               (int)noSetFMUStatePriorToCurrentPoint), fn_name));
}

fmi2Status fmi2CancelStep(fmi2Component c) {
    ENTER("fmi2CancelStep");
    LOG_ERROR(comp, "%s: fmi2DoStep always completes before it returns (canRunAsynchronuously = false); there "
              "is nothing to cancel", fn_name);
    LEAVE(fmi2Error);
}

/* ---- FMU states ---- */
static State *find_state(Component *comp, const void *s) {
    for (State *p = comp->states; p; p = p->next)
        if ((const void *)p == s) return p;
    return NULL;
}

fmi2Status fmi2GetFMUstate(fmi2Component c, fmi2FMUstate *FMUstate) {
    ENTER("fmi2GetFMUstate");
    if (!FMUstate) {
        LOG_ERROR(comp, "%s: the FMUstate pointer is NULL", fn_name);
        LEAVE(fmi2Error);
    }
    State *st = NULL;
    if (*FMUstate && !(st = find_state(comp, *FMUstate))) {
        LOG_ERROR(comp, "%s: *FMUstate (%p) is neither NULL nor a state of this instance", fn_name, *FMUstate);
        LEAVE(fmi2Error);
    }
    PyObject *obj = CALL("get_state", NULL);
    if (!obj) LEAVE(status_of(comp, NULL, fn_name));
    if (obj == py.None) {
        py.DecRef(obj);
        LEAVE(fmi2Error);            /* logged by the bridge */
    }
    if (!st) {
        st = calloc(1, sizeof *st);
        if (!st) {
            py.DecRef(obj);
            LOG_ERROR(comp, "%s: out of memory", fn_name);
            LEAVE(fmi2Error);
        }
        st->next = comp->states;
        comp->states = st;
    }
    if (st->obj) py.DecRef(st->obj);
    if (st->bytes) py.DecRef(st->bytes);
    st->obj = obj;
    st->bytes = NULL;
    *FMUstate = st;
    LEAVE(fmi2OK);
}

fmi2Status fmi2SetFMUstate(fmi2Component c, fmi2FMUstate FMUstate) {
    ENTER("fmi2SetFMUstate");
    State *st = find_state(comp, FMUstate);
    if (!st) {
        LOG_ERROR(comp, "%s: %p is not a state of this instance (freed, or made by another instance)", fn_name,
                  FMUstate);
        LEAVE(fmi2Error);
    }
    LEAVE(status_of(comp, CALL("set_state", "O", st->obj), fn_name));
}

fmi2Status fmi2FreeFMUstate(fmi2Component c, fmi2FMUstate *FMUstate) {
    ENTER("fmi2FreeFMUstate");
    if (!FMUstate) {
        LOG_ERROR(comp, "%s: the FMUstate pointer is NULL", fn_name);
        LEAVE(fmi2Error);
    }
    if (!*FMUstate) LEAVE(fmi2OK);
    for (State **p = &comp->states; *p; p = &(*p)->next)
        if ((void *)*p == *FMUstate) {
            State *st = *p;
            *p = st->next;
            if (st->obj) py.DecRef(st->obj);
            if (st->bytes) py.DecRef(st->bytes);
            free(st);
            *FMUstate = NULL;
            LEAVE(fmi2OK);
        }
    LOG_ERROR(comp, "%s: %p is not a state of this instance (freed already?)", fn_name, *FMUstate);
    LEAVE(fmi2Error);
}

static int serialize(Component *comp, State *st, const char *fn_name) {
    if (st->bytes) return 0;
    PyObject *b = CALL("serialize_state", "O", st->obj);
    if (!b) return status_of(comp, NULL, fn_name), -1;
    if (b == py.None) {
        py.DecRef(b);
        return -1;
    }
    st->bytes = b;
    return 0;
}

fmi2Status fmi2SerializedFMUstateSize(fmi2Component c, fmi2FMUstate FMUstate, size_t *size) {
    ENTER("fmi2SerializedFMUstateSize");
    State *st = find_state(comp, FMUstate);
    if (!st || !size) {
        LOG_ERROR(comp, "%s: %s", fn_name, !st ? "not a state of this instance" : "the size pointer is NULL");
        LEAVE(fmi2Error);
    }
    if (serialize(comp, st, fn_name)) LEAVE(fmi2Error);
    char *data;
    Py_ssize_t len;
    if (py.BytesAsStringAndSize(st->bytes, &data, &len)) LEAVE(status_of(comp, NULL, fn_name));
    *size = (size_t)len;
    LEAVE(fmi2OK);
}

fmi2Status fmi2SerializeFMUstate(fmi2Component c, fmi2FMUstate FMUstate, fmi2Byte serializedState[], size_t size) {
    ENTER("fmi2SerializeFMUstate");
    State *st = find_state(comp, FMUstate);
    if (!st || !serializedState) {
        LOG_ERROR(comp, "%s: %s", fn_name, !st ? "not a state of this instance" : "the byte array is NULL");
        LEAVE(fmi2Error);
    }
    if (serialize(comp, st, fn_name)) LEAVE(fmi2Error);
    char *data;
    Py_ssize_t len;
    if (py.BytesAsStringAndSize(st->bytes, &data, &len)) LEAVE(status_of(comp, NULL, fn_name));
    if ((size_t)len > size) {
        LOG_ERROR(comp, "%s: the state needs %zu bytes, the array has %zu (ask fmi2SerializedFMUstateSize)", fn_name,
                  (size_t)len, size);
        LEAVE(fmi2Error);
    }
    memcpy(serializedState, data, (size_t)len);
    LEAVE(fmi2OK);
}

fmi2Status fmi2DeSerializeFMUstate(fmi2Component c, const fmi2Byte serializedState[], size_t size,
                                   fmi2FMUstate *FMUstate) {
    ENTER("fmi2DeSerializeFMUstate");
    if ((!serializedState && size) || !FMUstate) {
        LOG_ERROR(comp, "%s: %s is NULL", fn_name, !FMUstate ? "the FMUstate pointer" : "the byte array");
        LEAVE(fmi2Error);
    }
    PyObject *mv = memview(serializedState, size, 0);
    PyObject *obj = mv ? CALL("deserialize_state", "O", mv) : NULL;
    if (mv) py.DecRef(mv);
    if (!obj) LEAVE(status_of(comp, NULL, fn_name));
    if (obj == py.None) {
        py.DecRef(obj);
        LEAVE(fmi2Error);            /* the reason is logged by the bridge */
    }
    State *st = calloc(1, sizeof *st);
    if (!st) {
        py.DecRef(obj);
        LOG_ERROR(comp, "%s: out of memory", fn_name);
        LEAVE(fmi2Error);
    }
    st->obj = obj;
    st->next = comp->states;
    comp->states = st;
    *FMUstate = st;
    LEAVE(fmi2OK);
}

/* ---- what co-simulation FMUs of fmu-mbs do not provide ---- */
#define NOT_PROVIDED(fn, why)                                                                                      \
    ENTER(fn);                                                                                                     \
    LOG_ERROR(comp, "%s is not provided by this FMU (%s)", fn_name, why);                                         \
    LEAVE(fmi2Error)

fmi2Status fmi2GetDirectionalDerivative(fmi2Component c, const fmi2ValueReference vUnknown_ref[], size_t nUnknown,
                                        const fmi2ValueReference vKnown_ref[], size_t nKnown,
                                        const fmi2Real dvKnown[], fmi2Real dvUnknown[]) {
    (void)vUnknown_ref, (void)nUnknown, (void)vKnown_ref, (void)nKnown, (void)dvKnown, (void)dvUnknown;
    NOT_PROVIDED("fmi2GetDirectionalDerivative", "providesDirectionalDerivative = false");
}

fmi2Status fmi2SetRealInputDerivatives(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                                       const fmi2Integer order[], const fmi2Real value[]) {
    (void)vr, (void)nvr, (void)order, (void)value;
    NOT_PROVIDED("fmi2SetRealInputDerivatives", "canInterpolateInputs = false");
}

fmi2Status fmi2GetRealOutputDerivatives(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                                        const fmi2Integer order[], fmi2Real value[]) {
    (void)vr, (void)nvr, (void)order, (void)value;
    NOT_PROVIDED("fmi2GetRealOutputDerivatives", "maxOutputDerivativeOrder = 0");
}

fmi2Status fmi2GetStatus(fmi2Component c, const fmi2StatusKind s, fmi2Status *value) {
    (void)s, (void)value;
    NOT_PROVIDED("fmi2GetStatus", "fmi2DoStep never returns fmi2Pending");
}

fmi2Status fmi2GetIntegerStatus(fmi2Component c, const fmi2StatusKind s, fmi2Integer *value) {
    (void)s, (void)value;
    NOT_PROVIDED("fmi2GetIntegerStatus", "no integer status is defined");
}

fmi2Status fmi2GetStringStatus(fmi2Component c, const fmi2StatusKind s, fmi2String *value) {
    (void)s, (void)value;
    NOT_PROVIDED("fmi2GetStringStatus", "fmi2DoStep never returns fmi2Pending");
}

fmi2Status fmi2GetRealStatus(fmi2Component c, const fmi2StatusKind s, fmi2Real *value) {
    ENTER("fmi2GetRealStatus");
    if (s != fmi2LastSuccessfulTime || !value) {
        LOG_ERROR(comp, "%s: %s", fn_name, !value ? "the value pointer is NULL" : "only fmi2LastSuccessfulTime");
        LEAVE(fmi2Error);
    }
    PyObject *r = CALL("last_successful_time", NULL);
    if (!r) LEAVE(status_of(comp, NULL, fn_name));
    *value = py.FloatAsDouble(r);
    py.DecRef(r);
    LEAVE(fmi2OK);
}

fmi2Status fmi2GetBooleanStatus(fmi2Component c, const fmi2StatusKind s, fmi2Boolean *value) {
    ENTER("fmi2GetBooleanStatus");
    if (s != fmi2Terminated || !value) {
        LOG_ERROR(comp, "%s: %s", fn_name, !value ? "the value pointer is NULL" : "only fmi2Terminated");
        LEAVE(fmi2Error);
    }
    *value = fmi2False;   /* a discarded step can be retried (with a smaller step, or after fmi2SetFMUstate) */
    LEAVE(fmi2OK);
}
