/* fmi2_unsupported.c: the FMI functions co-simulation FMUs of fmu-mbs do not provide: fmi2Error with the reason. */
#include "shim.h"

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
    ENTER_KEEP_LANE("fmi2GetRealStatus");   /* reads only */
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

