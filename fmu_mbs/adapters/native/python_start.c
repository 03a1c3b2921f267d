/* python_start.c: bringing Python up once per process: libpython loaded with global symbols, the C-API functions
 * looked up with dlsym (no Python headers, no undefined symbols), the interpreter started with its home and the
 * site folders of the chosen Python, or the running one used in a process that has Python already. */
#include "shim.h"
#include "fmu_config.h"

PyApi py;

static pthread_mutex_t python_lock = PTHREAD_MUTEX_INITIALIZER;
static int python_state = 0;          /* 0 not tried, 1 ready, -1 failed (python_error says why) */
static char python_error[8192];

int resolve_api(void *lib, char *err, size_t nerr) {
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
const char *python_exception(char *buf, size_t n) {
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
int bootstrap(const PyLocation *loc, char *err, size_t nerr) {
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

int start_python(char *err, size_t nerr) {
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

int ensure_python(char *err, size_t nerr) {
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

