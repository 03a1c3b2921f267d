/* instances.c: the registry of live instances (checked by value, so a freed or foreign pointer is never
 * dereferenced), the FMI logger, and the helpers of the calls into the bridge (adapters/fmi_bridge.py). */
#include "shim.h"

pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
Component *registry = NULL;

int component_is_live(const void *c) {
    int found = 0;
    pthread_mutex_lock(&registry_lock);
    for (Component *p = registry; p && !found; p = p->next) found = (const void *)p == c;
    pthread_mutex_unlock(&registry_lock);
    return found;
}

/* Log through the host's logger (or stderr when there is none); the text is passed as it is (no printf format). */
void log_to(fmi2CallbackLogger logger, fmi2ComponentEnvironment env, const char *instance, fmi2Status status,
                   const char *category, const char *fmt, ...) {
    char msg[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (logger) logger(env, instance ? instance : "?", status, category, msg);
    else fprintf(stderr, "[fmu-mbs %s] %s\n", instance ? instance : "?", msg);
}

/* ---- calls into the bridge ---- */

/* The logger handed to Python: log(status, category: bytes, message: bytes); self holds the component. */
PyObject *py_log(PyObject *self, PyObject *args) {
    int status;
    const char *category, *message;
    if (!py.ArgParseTuple(args, "iyy", &status, &category, &message)) return NULL;
    Component *c = (Component *)py.LongAsVoidPtr(self);
    if (c && component_is_live(c) && c->logger) c->logger(c->env, c->name, (fmi2Status)status, category, message);
    py.IncRef(py.None);   /* Py_RETURN_NONE: a new reference to None */
    return py.None;
}

PyMethodDef log_def = {"log", py_log, METH_VARARGS, "FMI logger of one instance"};

/* Status from a bridge call's result (an int); an exception or another type is an error with its text logged. */
fmi2Status status_of(Component *c, PyObject *r, const char *fn) {
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
void lose(Component *comp) {
    lane_off(comp);
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

PyObject *memview(const void *p, size_t bytes, int writable) {
    static char empty[8];
    return py.MemoryViewFromMemory(p ? (char *)p : empty, (Py_ssize_t)bytes, writable ? PyBUF_WRITE : PyBUF_READ);
}

