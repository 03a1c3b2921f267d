/* fmu_host: a minimal native FMI 2.0 co-simulation importer, written the way a Modelica tool's or Simulink's FMU
 * import loads an FMU: read modelDescription.xml, dlopen binaries/linux64/<modelIdentifier>.so, resolve the fmi2
 * functions, instantiate with a logger callback and step it with fmi2DoStep. No Python in this program: the FMU's
 * binary starts its own interpreter; see docs/using-in-modelica-and-simulink.md.
 *
 * It runs the crane FMU of fmu-mbs with the master-side PD law of integration/crane_pd_demo.py on the boom angle
 * (or a constant force) and writes every output at every communication point to a CSV file.
 *
 *   fmu_host UNZIPPED_FMU_DIR [options]
 *     --out FILE          CSV file (default fmu_host.csv): time, the input, every output variable
 *     --stop T            stop time, s (default 6)
 *     --step H            communication step, s (default 1e-3)
 *     --input NAME        the input the law drives (default cylinder.f)
 *     --angle NAME        controlled output (default boom_hinge.s), --rate NAME its rate (default boom_hinge.sd)
 *     --f0 F              feed-forward force, N (default 0); --kp KP (N/rad, default 2e5); --kd KD (default 2e4)
 *     --const F           no PD law: the input is F at every step (with --input -: no input is set; any FMU)
 *     --param NAME=VALUE  set a Real or Integer variable in initialization mode (repeatable)
 *     --nan-at T          from the first communication point >= T the input is NaN (a failing case)
 *     --state-check N     at half the run, save the FMU state, do N steps, restore it, redo them: the outputs
 *                         must be equal bit for bit (fmi2GetFMUstate / fmi2SetFMUstate)
 *     --repeat N          N complete runs in one process (dlopen ... dlclose each time), as a tool that runs
 *                         several simulations in one session (Simulink in MATLAB); stops at the first failure
 *     --libpython PATH    dlopen PATH with RTLD_GLOBAL before the FMU (not needed: the FMU loads its own Python)
 *     --exit fast         _exit() once everything is freed and written (skips exit handlers and destructors);
 *                         default "normal": return from main
 *     --logging off       instantiate with loggingOn = fmi2False (default on)
 *     --quiet             no per-run summary on stdout
 *
 * Exit codes: 0 run completed; 1 usage, load or instantiation error; 2 the FMU returned fmi2Discard or fmi2Error
 * (the reason is in its log); 3 fmi2Fatal; 4 the state check found a difference.
 *
 * Build: gcc -std=c11 -O2 -ffp-contract=off -I integration/native_host/fmi2 integration/native_host/fmu_host.c \
 *            -o fmu_host -ldl -lm
 * (-ffp-contract=off: the PD law gives the same doubles as the Python demo, so the runs can be compared exactly.)
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fmi2FunctionTypes.h"

/* ---------------------------------------------------------------------------------------------------------------
 * modelDescription.xml: a small tag scanner (comments, processing instructions, quoted attribute values and the
 * five XML entities plus numeric references are handled); enough to read the GUID, the modelIdentifier and every
 * ScalarVariable's name, value reference, causality and type.
 * ------------------------------------------------------------------------------------------------------------- */

typedef struct {
    char *name;
    fmi2ValueReference vr;
    char causality[16];
    char type[16]; /* Real, Integer, Boolean, String, Enumeration */
} Variable;

typedef struct {
    char *guid;
    char *model_identifier;
    Variable *vars;
    size_t n_vars;
} ModelDescription;

static char *read_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    if (buf) buf[n] = '\0';
    fclose(f);
    return buf;
}

/* Append the UTF-8 encoding of code point cp to out. */
static char *put_utf8(char *out, unsigned long cp) {
    if (cp < 0x80) {
        *out++ = (char)cp;
    } else if (cp < 0x800) {
        *out++ = (char)(0xC0 | (cp >> 6));
        *out++ = (char)(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        *out++ = (char)(0xE0 | (cp >> 12));
        *out++ = (char)(0x80 | ((cp >> 6) & 0x3F));
        *out++ = (char)(0x80 | (cp & 0x3F));
    } else {
        *out++ = (char)(0xF0 | (cp >> 18));
        *out++ = (char)(0x80 | ((cp >> 12) & 0x3F));
        *out++ = (char)(0x80 | ((cp >> 6) & 0x3F));
        *out++ = (char)(0x80 | (cp & 0x3F));
    }
    return out;
}

/* Copy of the attribute value [s, e) with entities decoded. */
static char *xml_value(const char *s, const char *e) {
    char *out = malloc((size_t)(e - s) + 1), *o = out;
    while (s < e) {
        if (*s != '&') {
            *o++ = *s++;
            continue;
        }
        const char *semi = memchr(s, ';', (size_t)(e - s));
        if (!semi) {
            *o++ = *s++;
            continue;
        }
        size_t len = (size_t)(semi - s - 1);
        const char *ent = s + 1;
        if (len == 2 && !strncmp(ent, "lt", 2)) *o++ = '<';
        else if (len == 2 && !strncmp(ent, "gt", 2)) *o++ = '>';
        else if (len == 3 && !strncmp(ent, "amp", 3)) *o++ = '&';
        else if (len == 4 && !strncmp(ent, "quot", 4)) *o++ = '"';
        else if (len == 4 && !strncmp(ent, "apos", 4)) *o++ = '\'';
        else if (len > 1 && ent[0] == '#') o = put_utf8(o, ent[1] == 'x' ? strtoul(ent + 2, NULL, 16)
                                                                          : strtoul(ent + 1, NULL, 10));
        else {
            memcpy(o, s, len + 2);
            o += len + 2;
        }
        s = semi + 1;
    }
    *o = '\0';
    return out;
}

/* Value of attribute `name` in the start tag [tag, end) (a fresh string), or NULL. */
static char *xml_attribute(const char *tag, const char *end, const char *name) {
    const char *p = tag + 1;
    while (p < end && !strchr(" \t\r\n/>", *p)) p++; /* skip the element name */
    size_t nlen = strlen(name);
    while (p < end) {
        while (p < end && strchr(" \t\r\n", *p)) p++;
        const char *a = p;
        while (p < end && !strchr(" \t\r\n=/>", *p)) p++;
        const char *a_end = p;
        while (p < end && strchr(" \t\r\n", *p)) p++;
        if (p >= end || *p != '=') {
            p++;
            continue;
        }
        p++;
        while (p < end && strchr(" \t\r\n", *p)) p++;
        if (p >= end || (*p != '"' && *p != '\'')) return NULL;
        char quote = *p++;
        const char *v = p;
        while (p < end && *p != quote) p++;
        if ((size_t)(a_end - a) == nlen && !strncmp(a, name, nlen)) return xml_value(v, p);
        p++;
    }
    return NULL;
}

/* Next start or empty-element tag from *pos: sets [*tag, *end) and returns its name length, 0 at the end. */
static size_t xml_next_tag(const char **pos, const char **tag, const char **end) {
    const char *p = *pos;
    for (;;) {
        p = strchr(p, '<');
        if (!p) return 0;
        if (!strncmp(p, "<!--", 4)) {
            p = strstr(p, "-->");
            if (!p) return 0;
            continue;
        }
        if (p[1] == '?' || p[1] == '!' || p[1] == '/') {
            p++;
            continue;
        }
        /* the tag ends at the first '>' outside quotes */
        const char *q = p + 1;
        char quote = 0;
        while (*q && (quote || *q != '>')) {
            if (quote && *q == quote) quote = 0;
            else if (!quote && (*q == '"' || *q == '\'')) quote = *q;
            q++;
        }
        if (!*q) return 0;
        *tag = p;
        *end = q;
        *pos = q + 1;
        size_t n = 0;
        while (p[1 + n] && !strchr(" \t\r\n/>", p[1 + n])) n++;
        return n;
    }
}

static int parse_model_description(const char *path, ModelDescription *md) {
    char *xml = read_file(path);
    if (!xml) {
        fprintf(stderr, "fmu_host: cannot read %s\n", path);
        return -1;
    }
    memset(md, 0, sizeof *md);
    size_t cap = 0;
    Variable *current = NULL;
    const char *pos = xml, *tag, *end;
    size_t n;
    while ((n = xml_next_tag(&pos, &tag, &end)) > 0) {
        const char *name = tag + 1;
        if (n == 19 && !strncmp(name, "fmiModelDescription", n)) {
            md->guid = xml_attribute(tag, end, "guid");
        } else if (n == 12 && !strncmp(name, "CoSimulation", n)) {
            md->model_identifier = xml_attribute(tag, end, "modelIdentifier");
        } else if (n == 14 && !strncmp(name, "ScalarVariable", n)) {
            if (md->n_vars == cap) {
                cap = cap ? 2 * cap : 64;
                md->vars = realloc(md->vars, cap * sizeof *md->vars);
            }
            current = &md->vars[md->n_vars++];
            memset(current, 0, sizeof *current);
            current->name = xml_attribute(tag, end, "name");
            char *vr = xml_attribute(tag, end, "valueReference");
            char *causality = xml_attribute(tag, end, "causality");
            current->vr = vr ? (fmi2ValueReference)strtoul(vr, NULL, 10) : 0;
            snprintf(current->causality, sizeof current->causality, "%s", causality ? causality : "local");
            free(vr);
            free(causality);
            if (!current->name) {
                fprintf(stderr, "fmu_host: a ScalarVariable without a name in %s\n", path);
                free(xml);
                return -1;
            }
        } else if (current && !current->type[0] &&
                   ((n == 4 && !strncmp(name, "Real", 4)) || (n == 7 && !strncmp(name, "Integer", 7)) ||
                    (n == 7 && !strncmp(name, "Boolean", 7)) || (n == 6 && !strncmp(name, "String", 6)) ||
                    (n == 11 && !strncmp(name, "Enumeration", 11)))) {
            snprintf(current->type, sizeof current->type, "%.*s", (int)n, name);
        }
    }
    free(xml);
    if (!md->guid || !md->model_identifier) {
        fprintf(stderr, "fmu_host: %s has no guid or no CoSimulation modelIdentifier\n", path);
        return -1;
    }
    return 0;
}

static const Variable *find_variable(const ModelDescription *md, const char *name) {
    for (size_t i = 0; i < md->n_vars; i++)
        if (!strcmp(md->vars[i].name, name)) return &md->vars[i];
    return NULL;
}

/* ---------------------------------------------------------------------------------------------------------------
 * FMI callbacks
 * ------------------------------------------------------------------------------------------------------------- */

static const char *status_name(fmi2Status s) {
    switch (s) {
    case fmi2OK: return "fmi2OK";
    case fmi2Warning: return "fmi2Warning";
    case fmi2Discard: return "fmi2Discard";
    case fmi2Error: return "fmi2Error";
    case fmi2Fatal: return "fmi2Fatal";
    case fmi2Pending: return "fmi2Pending";
    }
    return "unknown status";
}

/* FMI 2.0 declares `message` a printf format for the variadic arguments. pythonfmu passes text already formatted
 * (Python messages and tracebacks, which may contain '%'), so it is printed as it is: formatting it would read
 * arguments that were never passed. */
static void logger(fmi2ComponentEnvironment env, fmi2String instance, fmi2Status status, fmi2String category,
                   fmi2String message, ...) {
    (void)env;
    fprintf(stderr, "[FMI log] %s %s %s: %s\n", instance ? instance : "?", status_name(status),
            category ? category : "-", message ? message : "");
    fflush(stderr);
}

/* ---------------------------------------------------------------------------------------------------------------
 * the run
 * ------------------------------------------------------------------------------------------------------------- */

typedef struct {
    fmi2InstantiateTYPE *instantiate;
    fmi2SetupExperimentTYPE *setup_experiment;
    fmi2EnterInitializationModeTYPE *enter_initialization_mode;
    fmi2ExitInitializationModeTYPE *exit_initialization_mode;
    fmi2SetRealTYPE *set_real;
    fmi2SetIntegerTYPE *set_integer;
    fmi2GetRealTYPE *get_real;
    fmi2DoStepTYPE *do_step;
    fmi2GetFMUstateTYPE *get_fmu_state;
    fmi2SetFMUstateTYPE *set_fmu_state;
    fmi2FreeFMUstateTYPE *free_fmu_state;
    fmi2TerminateTYPE *terminate;
    fmi2FreeInstanceTYPE *free_instance;
} Fmi2Api;

static void *resolve(void *lib, const char *name, int *missing) {
    void *f = dlsym(lib, name);
    if (!f) {
        fprintf(stderr, "fmu_host: the FMU binary does not export %s\n", name);
        *missing = 1;
    }
    return f;
}

/* Boom angle reference of integration/crane_pd_demo.py (rad): 30 deg, quintic ramp to 40 deg over 1-2 s, back over
 * 3.5-4.5 s. Written with the same operation order as the Python so both give the same doubles. */
static double ramp(double x) {
    x = fmin(fmax(x, 0.0), 1.0);
    return x * x * x * (10 - 15 * x + 6 * x * x);
}

static double reference(double t) {
    return (30.0 + 10.0 * (ramp(t - 1.0) - ramp(t - 3.5))) * (M_PI / 180.0);
}

typedef struct {
    const char *name;
    const char *value;
} Param;

typedef struct {
    const char *dir, *out_path, *input_name, *angle_name, *rate_name, *libpython;
    double stop, step, f0, kp, kd, constant, nan_at;
    int use_constant, fast_exit, quiet, state_check, repeat, logging;
    Param params[64];
    size_t n_params;
} Options;

/* What the run needs from modelDescription.xml. */
typedef struct {
    ModelDescription md;
    char dir[4096];
    const Variable *input, *angle, *rate;
    fmi2ValueReference *out_vr;
    const char **out_names;
    size_t n_out, angle_col, rate_col;
} Fmu;

static void usage(void) {
    fprintf(stderr, "usage: fmu_host UNZIPPED_FMU_DIR [--out FILE] [--stop T] [--step H] [--input NAME] "
                    "[--angle NAME] [--rate NAME] [--f0 F] [--kp KP] [--kd KD] [--const F] [--param NAME=VALUE]... "
                    "[--nan-at T] [--state-check N] [--repeat N] [--libpython PATH] [--exit fast|normal] "
                    "[--logging on|off] [--quiet]\n");
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void write_row(FILE *csv, double t, double u, const double *y, size_t ny) {
    fprintf(csv, "%.17g,%.17g", t, u);
    for (size_t i = 0; i < ny; i++) fprintf(csv, ",%.17g", y[i]);
    fputc('\n', csv);
}

static int parse_options(int argc, char **argv, Options *o) {
    *o = (Options){.out_path = "fmu_host.csv", .input_name = "cylinder.f", .angle_name = "boom_hinge.s",
                   .rate_name = "boom_hinge.sd", .stop = 6.0, .step = 1e-3, .kp = 2.0e5, .kd = 2.0e4,
                   .nan_at = INFINITY, .fast_exit = 0, .repeat = 1, .logging = 1};
    if (argc < 2 || argv[1][0] == '-') return -1;
    o->dir = argv[1];
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--quiet")) { o->quiet = 1; continue; }
        if (!v) return -1;
        i++;
        if (!strcmp(a, "--out")) o->out_path = v;
        else if (!strcmp(a, "--stop")) o->stop = strtod(v, NULL);
        else if (!strcmp(a, "--step")) o->step = strtod(v, NULL);
        else if (!strcmp(a, "--input")) o->input_name = v;
        else if (!strcmp(a, "--angle")) o->angle_name = v;
        else if (!strcmp(a, "--rate")) o->rate_name = v;
        else if (!strcmp(a, "--f0")) o->f0 = strtod(v, NULL);
        else if (!strcmp(a, "--kp")) o->kp = strtod(v, NULL);
        else if (!strcmp(a, "--kd")) o->kd = strtod(v, NULL);
        else if (!strcmp(a, "--const")) { o->constant = strtod(v, NULL); o->use_constant = 1; }
        else if (!strcmp(a, "--nan-at")) o->nan_at = strtod(v, NULL);
        else if (!strcmp(a, "--state-check")) o->state_check = atoi(v);
        else if (!strcmp(a, "--repeat")) o->repeat = atoi(v);
        else if (!strcmp(a, "--libpython")) o->libpython = v;
        else if (!strcmp(a, "--exit")) o->fast_exit = strcmp(v, "normal") != 0;
        else if (!strcmp(a, "--logging")) o->logging = strcmp(v, "off") != 0;
        else if (!strcmp(a, "--param") && o->n_params < 64 && strchr(v, '=')) {
            char *name = strdup(v);
            char *eq = strchr(name, '=');
            *eq = '\0';
            o->params[o->n_params].name = name;
            o->params[o->n_params++].value = eq + 1;
        } else return -1;
    }
    if (!(o->step > 0.0) || !(o->stop >= 0.0) || o->repeat < 1) {
        fprintf(stderr, "fmu_host: --step must be > 0, --stop >= 0 and --repeat >= 1\n");
        return -1;
    }
    return 0;
}

static int read_fmu(const Options *o, Fmu *f) {
    char path[8192];
    if (!realpath(o->dir, f->dir)) {
        fprintf(stderr, "fmu_host: no such folder %s\n", o->dir);
        return -1;
    }
    snprintf(path, sizeof path, "%s/modelDescription.xml", f->dir);
    if (parse_model_description(path, &f->md)) return -1;
    const ModelDescription *md = &f->md;
    int no_input = o->use_constant && !strcmp(o->input_name, "-");
    f->input = no_input ? NULL : find_variable(md, o->input_name);
    f->angle = o->use_constant ? NULL : find_variable(md, o->angle_name);
    f->rate = o->use_constant ? NULL : find_variable(md, o->rate_name);
    if ((!f->input && !no_input) || (!o->use_constant && (!f->angle || !f->rate))) {
        fprintf(stderr, "fmu_host: modelDescription.xml has no variable named '%s'\n",
                !f->input ? o->input_name : !f->angle ? o->angle_name : o->rate_name);
        return -1;
    }
    f->out_vr = malloc(md->n_vars * sizeof *f->out_vr);
    f->out_names = malloc(md->n_vars * sizeof *f->out_names);
    f->n_out = 0;
    for (size_t i = 0; i < md->n_vars; i++) {
        if (strcmp(md->vars[i].causality, "output") || strcmp(md->vars[i].type, "Real")) continue;
        if (f->angle == &md->vars[i]) f->angle_col = f->n_out;
        if (f->rate == &md->vars[i]) f->rate_col = f->n_out;
        f->out_names[f->n_out] = md->vars[i].name;
        f->out_vr[f->n_out++] = md->vars[i].vr;
    }
    if (!o->use_constant && (strcmp(f->angle->causality, "output") || strcmp(f->rate->causality, "output"))) {
        fprintf(stderr, "fmu_host: '%s' and '%s' must be Real outputs\n", o->angle_name, o->rate_name);
        return -1;
    }
    return 0;
}

static double law(const Options *o, double t, const Fmu *f, const double *y) {
    if (t >= o->nan_at - 1e-12) return NAN;
    if (o->use_constant) return o->constant;
    return o->f0 + o->kp * (reference(t) - y[f->angle_col]) - o->kd * y[f->rate_col];
}

/* Save the state, do n steps recording the outputs, restore, redo them: 0 if the outputs are the same bits, 4 if
 * not; *s gets the last FMI status, *t and *k advance past the replayed steps. */
static int state_check(const Fmi2Api *fmi, fmi2Component c, const Options *o, const Fmu *f, double *y, double *t,
                       long *k, fmi2Status *s) {
    int n = o->state_check, code = 0;
    double *first = malloc((size_t)n * f->n_out * sizeof *first), tc = *t;
    fmi2FMUstate state = NULL;
    *s = fmi->get_fmu_state(c, &state);
    for (int pass = 0; pass < 2 && *s <= fmi2Warning; pass++) {
        tc = *t;
        for (int j = 0; j < n && *s <= fmi2Warning; j++) {
            double u = law(o, tc, f, y);
            *s = f->input ? fmi->set_real(c, &f->input->vr, 1, &u) : fmi2OK;
            if (*s <= fmi2Warning) *s = fmi->do_step(c, tc, o->step, fmi2True);
            if (*s <= fmi2Warning) *s = fmi->get_real(c, f->out_vr, f->n_out, y);
            tc += o->step;
            double *row = first + (size_t)j * f->n_out;
            if (pass == 0) memcpy(row, y, f->n_out * sizeof *y);
            else if (memcmp(row, y, f->n_out * sizeof *y)) code = 4;
        }
        if (pass == 0 && *s <= fmi2Warning) {
            *s = fmi->set_fmu_state(c, state);
            if (*s <= fmi2Warning) *s = fmi->get_real(c, f->out_vr, f->n_out, y);
        }
    }
    if (*s <= fmi2Warning) *s = fmi->free_fmu_state(c, &state);
    if (*s <= fmi2Warning && !o->quiet)
        printf("fmu_host: state check: %d steps from t = %.6g s replayed after fmi2SetFMUstate: %s\n", n, *t,
               code ? "DIFFERENT outputs" : "identical outputs");
    *t = tc;
    *k += n;
    free(first);
    return code;
}

/* One complete use of the FMU, as a tool's simulation run: dlopen, instantiate, initialize, step, terminate, free,
 * dlclose. Returns the exit code (see the top of the file). */
static int run_once(const Options *o, const Fmu *f) {
    char path[8192];
    snprintf(path, sizeof path, "%s/binaries/linux64/%s.so", f->dir, f->md.model_identifier);
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "fmu_host: cannot load the FMU binary: %s\n", dlerror());
        return 1;
    }
    int missing = 0;
    Fmi2Api fmi = {
        resolve(lib, "fmi2Instantiate", &missing),        resolve(lib, "fmi2SetupExperiment", &missing),
        resolve(lib, "fmi2EnterInitializationMode", &missing),
        resolve(lib, "fmi2ExitInitializationMode", &missing),
        resolve(lib, "fmi2SetReal", &missing),            resolve(lib, "fmi2SetInteger", &missing),
        resolve(lib, "fmi2GetReal", &missing),            resolve(lib, "fmi2DoStep", &missing),
        resolve(lib, "fmi2GetFMUstate", &missing),        resolve(lib, "fmi2SetFMUstate", &missing),
        resolve(lib, "fmi2FreeFMUstate", &missing),       resolve(lib, "fmi2Terminate", &missing),
        resolve(lib, "fmi2FreeInstance", &missing),
    };
    if (missing) return 1;

    /* instantiate: resources as a file:// URI, every byte outside RFC 3986's unreserved set (and '/')
     * percent-encoded, as fmpy and tools write it */
    char uri[3 * 4096 + 64] = "file://", *u = uri + strlen(uri);
    for (const unsigned char *p = (const unsigned char *)f->dir; *p && u < uri + sizeof uri - 16; p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || strchr("-._~/", *p))
            *u++ = (char)*p;
        else u += sprintf(u, "%%%02X", *p);
    }
    strcpy(u, "/resources");
    fmi2CallbackFunctions callbacks = {logger, calloc, free, NULL, NULL};
    double t_load = now();
    fmi2Component c = fmi.instantiate("crane_host", fmi2CoSimulation, f->md.guid, uri, &callbacks, fmi2False,
                                      o->logging ? fmi2True : fmi2False);
    if (!c) {
        fprintf(stderr, "fmu_host: fmi2Instantiate failed (the reason is in the FMI log above)\n");
        return 1;
    }
    double t_instantiated = now();

    /* initialization: parameters and the first input value in initialization mode */
    fmi2Status s = fmi.setup_experiment(c, fmi2False, 0.0, 0.0, fmi2True, o->stop);
    if (s <= fmi2Warning) s = fmi.enter_initialization_mode(c);
    for (size_t i = 0; i < o->n_params && s <= fmi2Warning; i++) {
        const Variable *p = find_variable(&f->md, o->params[i].name);
        if (!p) {
            fprintf(stderr, "fmu_host: --param: modelDescription.xml has no variable named '%s'\n",
                    o->params[i].name);
            fmi.free_instance(c);
            return 1;
        }
        if (!strcmp(p->type, "Integer") || !strcmp(p->type, "Enumeration")) {
            fmi2Integer v = (fmi2Integer)strtol(o->params[i].value, NULL, 10);
            s = fmi.set_integer(c, &p->vr, 1, &v);
        } else {
            fmi2Real v = strtod(o->params[i].value, NULL);
            s = fmi.set_real(c, &p->vr, 1, &v);
        }
    }
    double u0 = o->use_constant ? o->constant : o->f0;
    if (s <= fmi2Warning && f->input) s = fmi.set_real(c, &f->input->vr, 1, &u0);
    if (s <= fmi2Warning) s = fmi.exit_initialization_mode(c);
    if (s > fmi2Warning) {
        fprintf(stderr, "fmu_host: initialization returned %s\n", status_name(s));
        if (s != fmi2Fatal) fmi.free_instance(c);
        return s == fmi2Fatal ? 3 : 2;
    }

    /* the run: outputs at t, the law, a CSV row, a step */
    FILE *csv = fopen(o->out_path, "w");
    if (!csv) {
        fprintf(stderr, "fmu_host: cannot write %s\n", o->out_path);
        fmi.terminate(c);
        fmi.free_instance(c);
        return 1;
    }
    fprintf(csv, "time,%s", o->input_name);
    for (size_t i = 0; i < f->n_out; i++) fprintf(csv, ",%s", f->out_names[i]);
    fputc('\n', csv);
    double *y = malloc((f->n_out + 1) * sizeof *y);
    double t = 0.0, t_first_step = 0.0, t_first_step_done = 0.0;
    long k = 0, k_check = o->state_check > 0 ? (long)(0.5 * o->stop / o->step) : -1;
    int code = 0;
    for (;;) {
        s = fmi.get_real(c, f->out_vr, f->n_out, y);
        if (s > fmi2Warning) break;
        double force = law(o, t, f, y);
        write_row(csv, t, force, y, f->n_out);
        if (!(t < o->stop - 1e-12)) break;
        if (k == k_check) {   /* the CSV has no rows for the replayed steps */
            code = state_check(&fmi, c, o, f, y, &t, &k, &s);
            if (s > fmi2Warning) break;
            continue;
        }
        s = f->input ? fmi.set_real(c, &f->input->vr, 1, &force) : fmi2OK;
        if (s > fmi2Warning) break;
        if (k == 0) t_first_step = now();
        s = fmi.do_step(c, t, o->step, fmi2True);
        if (k == 0) t_first_step_done = now();
        if (s > fmi2Warning) {
            fprintf(stderr, "fmu_host: fmi2DoStep(t = %.9g s, h = %g s) returned %s\n", t, o->step, status_name(s));
            break;
        }
        t += o->step;
        k++;
    }
    double t_end = now();
    fclose(csv);
    free(y);
    if (s > fmi2Warning) code = s == fmi2Fatal ? 3 : 2;
    if (s != fmi2Fatal) {
        /* after fmi2Fatal the FMI standard allows no further call on any instance */
        fmi2Status ts = fmi.terminate(c);
        if (ts > fmi2Warning && !code) code = ts == fmi2Fatal ? 3 : 2;
        fmi.free_instance(c);
    }
    if (!o->quiet) {
        printf("fmu_host: %s; %ld steps of %g s to t = %.6g s; %zu outputs per point written to %s\n",
               code ? "stopped early" : "run completed", k, o->step, t, f->n_out, o->out_path);
        if (k > 1)
            printf("fmu_host: wall time: fmi2Instantiate %.3f s, first fmi2DoStep %.3f s, then %.1f us per "
                   "communication step (getReal of the outputs, CSV row, setReal, doStep)\n",
                   t_instantiated - t_load, t_first_step_done - t_first_step,
                   1e6 * (t_end - t_first_step_done) / (double)(k - 1));
    }
    dlclose(lib);
    if (!o->quiet && o->repeat > 1) {
        void *still = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
        printf("fmu_host: after dlclose the FMU binary is %s\n", still ? "still loaded" : "unloaded");
        if (still) dlclose(still);
    }
    return code;
}

int main(int argc, char **argv) {
    Options o;
    Fmu f;
    if (parse_options(argc, argv, &o)) {
        usage();
        return 1;
    }
    if (read_fmu(&o, &f)) return 1;
    if (o.libpython && !dlopen(o.libpython, RTLD_NOW | RTLD_GLOBAL)) {
        fprintf(stderr, "fmu_host: cannot load %s: %s\n", o.libpython, dlerror());
        return 1;
    }
    int code = 0;
    for (int r = 0; r < o.repeat && code == 0; r++) code = run_once(&o, &f);
    fflush(stdout);
    fflush(stderr);
    if (o.fast_exit) _exit(code);
    return code;
}
