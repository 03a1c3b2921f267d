/* fmu_host: a minimal native FMI 2.0 co-simulation importer, written the way a Modelica tool's or Simulink's FMU
 * import loads an FMU: read modelDescription.xml, dlopen binaries/linux64/<modelIdentifier>.so, resolve the fmi2
 * functions, instantiate with a logger callback and step it with fmi2DoStep. No Python in this program: the FMU's
 * binary (pythonfmu's wrapper) starts its own interpreter; see docs/using-in-modelica-and-simulink.md.
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
 *     --const F           no PD law: the input is F at every step
 *     --param NAME=VALUE  set a Real or Integer variable in initialization mode (repeatable)
 *     --nan-at T          from the first communication point >= T the input is NaN (a failing case)
 *     --state-check N     at half the run, save the FMU state, do N steps, restore it, redo them: the outputs
 *                         must be equal bit for bit (fmi2GetFMUstate / fmi2SetFMUstate)
 *     --libpython PATH    dlopen PATH with RTLD_GLOBAL before the FMU (what LD_PRELOAD does, from the host)
 *     --exit normal       return from main (runs atexit handlers and library destructors, i.e. Py_Finalize of
 *                         pythonfmu's interpreter); default "fast": _exit() once everything is freed and written
 *     --quiet             no per-run summary on stdout
 *
 * Exit codes: 0 run completed; 1 usage, load or instantiation error; 2 the FMU returned fmi2Discard or fmi2Error
 * (the reason is in its log); 3 fmi2Fatal; 4 the state check found a difference.
 *
 * Build: gcc -std=c11 -O2 -ffp-contract=off -I integration/native_host/fmi2 fmu_host.c -o fmu_host -ldl -lm
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

static void usage(void) {
    fprintf(stderr, "usage: fmu_host UNZIPPED_FMU_DIR [--out FILE] [--stop T] [--step H] [--input NAME] "
                    "[--angle NAME] [--rate NAME] [--f0 F] [--kp KP] [--kd KD] [--const F] [--param NAME=VALUE]... "
                    "[--nan-at T] [--state-check N] [--libpython PATH] [--exit fast|normal] [--quiet]\n");
}

static int finish(int code, int fast_exit) {
    fflush(stdout);
    fflush(stderr);
    /* pythonfmu's binary finalizes its embedded interpreter (Py_Finalize) from a static destructor at process
     * exit; with numpy/scipy/numba loaded that can abort (glibc heap check, SIGABRT). Everything is freed and
     * written by now, so leave without running the destructors. */
    if (fast_exit) _exit(code);
    return code;
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

int main(int argc, char **argv) {
    if (argc < 2 || argv[1][0] == '-') {
        usage();
        return 1;
    }
    const char *dir = argv[1], *out_path = "fmu_host.csv", *input_name = "cylinder.f";
    const char *angle_name = "boom_hinge.s", *rate_name = "boom_hinge.sd", *libpython = NULL;
    double stop = 6.0, step = 1e-3, f0 = 0.0, kp = 2.0e5, kd = 2.0e4, constant = 0.0, nan_at = INFINITY;
    int use_constant = 0, fast_exit = 1, quiet = 0, state_check = 0;
    Param params[64];
    size_t n_params = 0;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--quiet")) { quiet = 1; continue; }
        if (!v) { usage(); return 1; }
        i++;
        if (!strcmp(a, "--out")) out_path = v;
        else if (!strcmp(a, "--stop")) stop = strtod(v, NULL);
        else if (!strcmp(a, "--step")) step = strtod(v, NULL);
        else if (!strcmp(a, "--input")) input_name = v;
        else if (!strcmp(a, "--angle")) angle_name = v;
        else if (!strcmp(a, "--rate")) rate_name = v;
        else if (!strcmp(a, "--f0")) f0 = strtod(v, NULL);
        else if (!strcmp(a, "--kp")) kp = strtod(v, NULL);
        else if (!strcmp(a, "--kd")) kd = strtod(v, NULL);
        else if (!strcmp(a, "--const")) { constant = strtod(v, NULL); use_constant = 1; }
        else if (!strcmp(a, "--nan-at")) nan_at = strtod(v, NULL);
        else if (!strcmp(a, "--state-check")) state_check = atoi(v);
        else if (!strcmp(a, "--libpython")) libpython = v;
        else if (!strcmp(a, "--exit")) fast_exit = strcmp(v, "normal") != 0;
        else if (!strcmp(a, "--param") && n_params < 64 && strchr(v, '=')) {
            char *name = strdup(v);
            char *eq = strchr(name, '=');
            *eq = '\0';
            params[n_params].name = name;
            params[n_params++].value = eq + 1;
        } else { usage(); return 1; }
    }
    if (!(step > 0.0) || !(stop >= 0.0)) {
        fprintf(stderr, "fmu_host: --step must be > 0 and --stop >= 0\n");
        return 1;
    }

    /* 1. modelDescription.xml */
    char path[8192];
    char real_dir[4096];
    if (!realpath(dir, real_dir)) {
        fprintf(stderr, "fmu_host: no such folder %s\n", dir);
        return 1;
    }
    snprintf(path, sizeof path, "%s/modelDescription.xml", real_dir);
    ModelDescription md;
    if (parse_model_description(path, &md)) return 1;
    const Variable *input = find_variable(&md, input_name);
    const Variable *angle = use_constant ? NULL : find_variable(&md, angle_name);
    const Variable *rate = use_constant ? NULL : find_variable(&md, rate_name);
    if (!input || (!use_constant && (!angle || !rate))) {
        fprintf(stderr, "fmu_host: modelDescription.xml has no variable named '%s'\n",
                !input ? input_name : !angle ? angle_name : rate_name);
        return 1;
    }
    size_t n_out = 0;
    fmi2ValueReference *out_vr = malloc(md.n_vars * sizeof *out_vr);
    const char **out_names = malloc(md.n_vars * sizeof *out_names);
    size_t angle_col = 0, rate_col = 0;
    for (size_t i = 0; i < md.n_vars; i++) {
        if (strcmp(md.vars[i].causality, "output") || strcmp(md.vars[i].type, "Real")) continue;
        if (angle == &md.vars[i]) angle_col = n_out;
        if (rate == &md.vars[i]) rate_col = n_out;
        out_names[n_out] = md.vars[i].name;
        out_vr[n_out++] = md.vars[i].vr;
    }
    if (!use_constant && (strcmp(angle->causality, "output") || strcmp(rate->causality, "output"))) {
        fprintf(stderr, "fmu_host: '%s' and '%s' must be Real outputs\n", angle_name, rate_name);
        return 1;
    }

    /* 2. the binary */
    if (libpython && !dlopen(libpython, RTLD_NOW | RTLD_GLOBAL)) {
        fprintf(stderr, "fmu_host: cannot load %s: %s\n", libpython, dlerror());
        return 1;
    }
    snprintf(path, sizeof path, "%s/binaries/linux64/%s.so", real_dir, md.model_identifier);
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

    /* 3. instantiate: resources as a file:// URI (pythonfmu strips "file://" and decodes only %20) */
    char uri[4200] = "file://", *u = uri + strlen(uri);
    for (const char *p = real_dir; *p && u < uri + sizeof uri - 16; p++) {
        if (*p == ' ') { memcpy(u, "%20", 3); u += 3; }
        else *u++ = *p;
    }
    strcpy(u, "/resources");
    fmi2CallbackFunctions callbacks = {logger, calloc, free, NULL, NULL};
    double t_load = now();
    fmi2Component c = fmi.instantiate("crane_host", fmi2CoSimulation, md.guid, uri, &callbacks, fmi2False, fmi2True);
    if (!c) {
        fprintf(stderr, "fmu_host: fmi2Instantiate failed (the reason is in the FMI log above)\n");
        return finish(1, fast_exit);
    }

    double t_instantiated = now();

    /* 4. initialization */
    fmi2Status s = fmi.setup_experiment(c, fmi2False, 0.0, 0.0, fmi2True, stop);
    if (s <= fmi2Warning) s = fmi.enter_initialization_mode(c);
    for (size_t i = 0; i < n_params && s <= fmi2Warning; i++) {
        const Variable *p = find_variable(&md, params[i].name);
        if (!p) {
            fprintf(stderr, "fmu_host: --param: modelDescription.xml has no variable named '%s'\n", params[i].name);
            fmi.free_instance(c);
            return finish(1, fast_exit);
        }
        if (!strcmp(p->type, "Integer")) {
            fmi2Integer v = (fmi2Integer)strtol(params[i].value, NULL, 10);
            s = fmi.set_integer(c, &p->vr, 1, &v);
        } else {
            fmi2Real v = strtod(params[i].value, NULL);
            s = fmi.set_real(c, &p->vr, 1, &v);
        }
    }
    double u0 = use_constant ? constant : f0;
    if (s <= fmi2Warning) s = fmi.set_real(c, &input->vr, 1, &u0);
    if (s <= fmi2Warning) s = fmi.exit_initialization_mode(c);
    if (s > fmi2Warning) {
        fprintf(stderr, "fmu_host: initialization returned %s\n", status_name(s));
        if (s != fmi2Fatal) fmi.free_instance(c);
        return finish(s == fmi2Fatal ? 3 : 2, fast_exit);
    }

    /* 5. the run: outputs at t, the law, a row, a step */
    FILE *csv = fopen(out_path, "w");
    if (!csv) {
        fprintf(stderr, "fmu_host: cannot write %s\n", out_path);
        fmi.terminate(c);
        fmi.free_instance(c);
        return finish(1, fast_exit);
    }
    fprintf(csv, "time,%s", input_name);
    for (size_t i = 0; i < n_out; i++) fprintf(csv, ",%s", out_names[i]);
    fputc('\n', csv);
    double *y = malloc((n_out + 1) * sizeof *y), *y_check = malloc(((size_t)state_check + 1) * (n_out + 1) * sizeof *y);
    double t = 0.0, t_first_step = 0.0, t_first_step_done = 0.0;
    long k = 0, k_check = state_check > 0 ? (long)(0.5 * stop / step) : -1;
    int code = 0;
    for (;;) {
        s = fmi.get_real(c, out_vr, n_out, y);
        if (s > fmi2Warning) break;
        double force = use_constant ? constant : f0 + kp * (reference(t) - y[angle_col]) - kd * y[rate_col];
        if (t >= nan_at - 1e-12) force = NAN;
        write_row(csv, t, force, y, n_out);
        if (!(t < stop - 1e-12)) break;
        if (k == k_check) {
            /* save, step N times recording the outputs, restore, step again: the same bits */
            fmi2FMUstate state = NULL;
            double tc = t;
            s = fmi.get_fmu_state(c, &state);
            for (int pass = 0; pass < 2 && s <= fmi2Warning; pass++) {
                tc = t;
                for (int j = 0; j < state_check && s <= fmi2Warning; j++) {
                    double fj = f0 + kp * (reference(tc) - y[angle_col]) - kd * y[rate_col];
                    if (use_constant) fj = constant;
                    s = fmi.set_real(c, &input->vr, 1, &fj);
                    if (s <= fmi2Warning) s = fmi.do_step(c, tc, step, fmi2True);
                    if (s <= fmi2Warning) s = fmi.get_real(c, out_vr, n_out, y);
                    tc += step;
                    double *row = y_check + (size_t)j * n_out;
                    if (pass == 0) memcpy(row, y, n_out * sizeof *y);
                    else if (memcmp(row, y, n_out * sizeof *y)) code = 4;
                }
                if (pass == 0 && s <= fmi2Warning) {
                    s = fmi.set_fmu_state(c, state);
                    if (s <= fmi2Warning) s = fmi.get_real(c, out_vr, n_out, y);
                }
            }
            if (s <= fmi2Warning) s = fmi.free_fmu_state(c, &state);
            if (s > fmi2Warning) break;
            if (!quiet)
                printf("fmu_host: state check: %d steps from t = %.6g s replayed after fmi2SetFMUstate: %s\n",
                       state_check, t, code == 4 ? "DIFFERENT outputs" : "identical outputs");
            /* go on from the state after the replay; the CSV rows of these steps are not written */
            s = fmi.get_real(c, out_vr, n_out, y);
            if (s > fmi2Warning) break;
            t = tc;
            k += state_check;
            continue;
        }
        s = fmi.set_real(c, &input->vr, 1, &force);
        if (s > fmi2Warning) break;
        if (k == 0) t_first_step = now();
        s = fmi.do_step(c, t, step, fmi2True);
        if (k == 0) t_first_step_done = now();
        if (s > fmi2Warning) {
            fprintf(stderr, "fmu_host: fmi2DoStep(t = %.9g s, h = %g s) returned %s\n", t, step, status_name(s));
            break;
        }
        t += step;
        k++;
    }
    double t_end = now();
    fclose(csv);
    if (s > fmi2Warning) code = s == fmi2Fatal ? 3 : 2;
    if (s != fmi2Fatal) {
        /* after fmi2Fatal the FMI standard allows no further call on any instance */
        fmi2Status ts = fmi.terminate(c);
        if (ts > fmi2Warning && !code) code = ts == fmi2Fatal ? 3 : 2;
        fmi.free_instance(c);
    }
    if (!quiet) {
        printf("fmu_host: %s; %ld steps of %g s to t = %.6g s; %zu outputs per point written to %s\n",
               code ? "stopped early" : "run completed", k, step, t, n_out, out_path);
        if (k > 1)
            printf("fmu_host: wall time: fmi2Instantiate %.3f s, first fmi2DoStep %.3f s, then %.1f us per "
                   "communication step (getReal of the outputs, CSV row, setReal, doStep)\n",
                   t_instantiated - t_load, t_first_step_done - t_first_step,
                   1e6 * (t_end - t_first_step_done) / (double)(k - 1));
    }
    return finish(code, fast_exit);
}
