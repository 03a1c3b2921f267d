/* fmi2_states.c: FMU states (get, set, free, serialize, deserialize): each state is a bridge object held by
 * its instance; a pointer the host passes is checked against the instance's states before use. */
#include "shim.h"

State *find_state(Component *comp, const void *s) {
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

int serialize(Component *comp, State *st, const char *fn_name) {
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

