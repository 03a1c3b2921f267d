/* step_lane.c: the communication step without the bridge's Python (issue 13: a solver-speed step).
 *
 * After a doStep that the bridge (adapters/fmi_bridge.py) took on the one-call step kernel
 * (adapters/fmu_fast_step.py, kernels/comm_step.py), it arms this instance's lane: the kernel, its packed arguments,
 * where the integrator keeps t, and per value reference where fmi2SetReal writes an input (a held Real input with
 * no range or enumeration) and where fmi2GetReal reads an output. While armed,
 *
 * - fmi2SetReal of lane inputs and fmi2GetReal of lane outputs copy the doubles here, and
 * - fmi2DoStep checks the step as FastStep.run does (t at the integrator's time, 0 < H, substeps within the
 *   report's capacity) and calls the kernel directly (one Python call: numba's compiled entry, ~1 us).
 *
 * Anything else goes to the bridge as before: a call that is not all lane values, a step the lane does not take, a
 * kernel that declines a step (its code is passed on: the bridge restores the snapshot and takes the general path,
 * as a Python doStep would). Every call into the bridge except a getter disarms the lane first, so a mode
 * change, an FMU state, a parameter or a reset never meets a stale lane; the next Python doStep arms it again.
 * All of it runs with the GIL held (ENTER). */
#include "shim.h"

/* Release the lane's references (GIL held). */
void lane_off(Component *comp) {
    StepLane *L = &comp->lane;
    if (!L->armed) return;
    L->armed = 0;
    py.DecRef(L->kernel);
    py.DecRef(L->table);
    py.DecRef(L->layout);
    L->kernel = L->table = L->layout = NULL;
}

/* Free the lane's tables (at fmi2FreeInstance, after lane_off). */
void lane_free(Component *comp) {
    free(comp->lane.real_in);
    free(comp->lane.real_out);
    comp->lane.real_in = comp->lane.real_out = NULL;
    comp->lane.n_vars = 0;
}

/* arm(kernel, table, layout, t_addr, last_time_addr, step, capacity, n_vars, in_addr, out_addr) arms the lane;
 * arm() disarms it. in_addr and out_addr: int64 arrays of n_vars addresses (0: not a lane value), copied here. */
static PyObject *py_arm_lane(PyObject *self, PyObject *args) {
    Component *comp = (Component *)py.LongAsVoidPtr(self);
    PyObject *kernel = NULL, *table = NULL, *layout = NULL;
    unsigned long long t_addr = 0, last_addr = 0, in_addr = 0, out_addr = 0;
    double step = 0.0;
    long capacity = 0, n_vars = 0;
    if (!comp || !component_is_live(comp)) {
        py.IncRef(py.None);
        return py.None;
    }
    lane_off(comp);
    if (!py.ArgParseTuple(args, "|OOOKKdllKK", &kernel, &table, &layout, &t_addr, &last_addr, &step, &capacity,
                          &n_vars, &in_addr, &out_addr))
        return NULL;
    if (kernel && table && layout && t_addr && last_addr && step > 0.0 && capacity > 0 && n_vars > 0 && in_addr &&
        out_addr) {
        StepLane *L = &comp->lane;
        if ((size_t)n_vars != L->n_vars) {
            double **in = realloc(L->real_in, (size_t)n_vars * sizeof *in);
            if (in) L->real_in = in;
            double **out = in ? realloc(L->real_out, (size_t)n_vars * sizeof *out) : NULL;
            if (out) L->real_out = out;
            if (!in || !out) {   /* not armed: the bridge takes every call */
                lane_free(comp);
                py.IncRef(py.None);
                return py.None;
            }
            L->n_vars = (size_t)n_vars;
        }
        memcpy(L->real_in, (const void *)(uintptr_t)in_addr, L->n_vars * sizeof *L->real_in);
        memcpy(L->real_out, (const void *)(uintptr_t)out_addr, L->n_vars * sizeof *L->real_out);
        py.IncRef(kernel);
        py.IncRef(table);
        py.IncRef(layout);
        L->kernel = kernel;
        L->table = table;
        L->layout = layout;
        L->t_now = (double *)(uintptr_t)t_addr;
        L->last_time = (double *)(uintptr_t)last_addr;
        L->step = step;
        L->capacity = capacity;
        L->armed = 1;
    }
    py.IncRef(py.None);
    return py.None;
}

PyMethodDef arm_lane_def = {"arm_lane", py_arm_lane, METH_VARARGS, "arm (or, without arguments, disarm) the lane"};

int lane_set_real(Component *comp, const fmi2ValueReference vr[], size_t nvr, const fmi2Real value[]) {
    StepLane *L = &comp->lane;
    if (!L->armed || !vr || !value) return 0;
    for (size_t i = 0; i < nvr; i++)
        if (vr[i] >= L->n_vars || !L->real_in[vr[i]]) return 0;
    for (size_t i = 0; i < nvr; i++) *L->real_in[vr[i]] = value[i];
    return 1;
}

int lane_get_real(Component *comp, const fmi2ValueReference vr[], size_t nvr, fmi2Real value[]) {
    StepLane *L = &comp->lane;
    if (!L->armed || !vr || !value) return 0;
    for (size_t i = 0; i < nvr; i++)
        if (vr[i] >= L->n_vars || !L->real_out[vr[i]]) return 0;
    for (size_t i = 0; i < nvr; i++) value[i] = *L->real_out[vr[i]] + 0.0;
    return 1;
}

/* 1: the lane took the step; 0: not a lane step (nothing changed); 2: the kernel declined it (*code, its code);
 * -1: the kernel call raised (the exception is pending). Mirrors adapters/fmu_fast_step.py FastStep.run. */
int lane_do_step(Component *comp, double t, double H, long *code) {
    StepLane *L = &comp->lane;
    if (!L->armed) return 0;
    double t0 = *L->t_now, span = (t + H) - t0, tol = 1e-9 * (t < 0.0 ? (t < -1.0 ? -t : 1.0) : (t > 1.0 ? t : 1.0));
    double dt = t - t0;
    if (!(H > 0.0 && H <= 1.7976931348623157e308 && span > 0.0 && dt <= tol && -dt <= tol)) return 0;
    double x = span / L->step * (1.0 - 1e-9);
    if (!(x <= (double)L->capacity)) return 0;
    long n = (long)x;
    if ((double)n < x) n += 1;   /* ceil */
    if (n < 1) n = 1;
    PyObject *r = py.CallFunction(L->kernel, "OOldd", L->table, L->layout, n, span / (double)n, t + H);
    if (!r) return -1;
    long c = py.LongAsLong(r);
    py.DecRef(r);
    if (c == -1 && py.ErrOccurred()) return -1;
    if (c == 0) {
        *L->last_time = t + H;
        return 1;
    }
    *code = c;
    return 2;
}
