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
#include "shim.h"
#include "fmu_config.h"

/* ---- FMI functions: instantiation, modes, values and steps (FMU states: fmi2_states.c) ---- */
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
    PyObject *self = py.LongFromVoidPtr(comp);   /* the step lane (step_lane.c), where the bridge offers it */
    comp->arm_fn = self ? py.CFunctionNewEx(&arm_lane_def, self, NULL) : NULL;
    if (self) py.DecRef(self);
    PyObject *r = comp->arm_fn ? CALL("use_lane", "O", comp->arm_fn) : NULL;
    if (r) py.DecRef(r);
    else py.ErrClear();      /* no lane: every call goes to the bridge */
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
    lane_off(comp);
    if (comp->inst) {
        PyObject *r = CALL("free", NULL);
        if (r) py.DecRef(r);
        else py.ErrClear();
    }
    lose(comp);
    lane_free(comp);
    if (comp->arm_fn) py.DecRef(comp->arm_fn);
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

/* get/set of n values: vr and value arrays as memoryviews (no copies); NULL arrays with n > 0 are refused. A getter
 * (writable value array) keeps the step lane; a setter goes to the bridge, which may change what the lane holds, so
 * it disarms it first. ARRAY_CALL_BODY follows an ENTER_KEEP_LANE (fmi2GetReal and fmi2SetReal try the lane first). */
#define ARRAY_CALL(fn, pyname, vr, n, value, size, writable)                                                       \
    ENTER_KEEP_LANE(fn);                                                                                           \
    ARRAY_CALL_BODY(pyname, vr, n, value, size, writable)

#define ARRAY_CALL_BODY(pyname, vr, n, value, size, writable)                                                      \
    if (!(writable)) lane_off(comp);                                                                               \
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
    ENTER_KEEP_LANE("fmi2GetReal");
    if (lane_get_real(comp, vr, nvr, value)) LEAVE(fmi2OK);
    ARRAY_CALL_BODY("get_real", vr, nvr, value, sizeof(fmi2Real), 1);
}

fmi2Status fmi2GetInteger(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, fmi2Integer value[]) {
    ARRAY_CALL("fmi2GetInteger", "get_integer", vr, nvr, value, sizeof(fmi2Integer), 1);
}

fmi2Status fmi2GetBoolean(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, fmi2Boolean value[]) {
    ARRAY_CALL("fmi2GetBoolean", "get_boolean", vr, nvr, value, sizeof(fmi2Boolean), 1);
}

fmi2Status fmi2SetReal(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, const fmi2Real value[]) {
    ENTER_KEEP_LANE("fmi2SetReal");
    if (lane_set_real(comp, vr, nvr, value)) LEAVE(fmi2OK);
    ARRAY_CALL_BODY("set_real", vr, nvr, value, sizeof(fmi2Real), 0);
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
    ENTER_KEEP_LANE("fmi2DoStep");
    long code = -1;   /* -1: the lane did not run the kernel */
    int taken = lane_do_step(comp, currentCommunicationPoint, communicationStepSize, &code);
    if (taken == 1) LEAVE(fmi2OK);
    lane_off(comp);
    if (taken < 0) {
        char text[4096];
        LOG_ERROR(comp, "%s: internal error in the FMU's step kernel: %s", fn_name, python_exception(text, sizeof text));
        LEAVE(fmi2Error);
    }
    LEAVE(status_of(comp, CALL("do_step", "ddil", currentCommunicationPoint, communicationStepSize,
                               (int)noSetFMUStatePriorToCurrentPoint, code), fn_name));
}

fmi2Status fmi2CancelStep(fmi2Component c) {
    ENTER("fmi2CancelStep");
    LOG_ERROR(comp, "%s: fmi2DoStep always completes before it returns (canRunAsynchronuously = false); there "
              "is nothing to cancel", fn_name);
    LEAVE(fmi2Error);
}

