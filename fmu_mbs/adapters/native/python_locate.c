/* python_locate.c: the Python to bring up: $FMU_MBS_PYTHON, a fmu-mbs-python.txt file, or the one recorded when
 * the FMU was built (fmu_config.h); another Python is asked for its libpython, home and folders. */
#include "shim.h"
#include "fmu_config.h"

int is_file(const char *p) {
    struct stat st;
    return p[0] && stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

int is_dir(const char *p) {
    struct stat st;
    return p[0] && stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The folder of this binary (binaries/linux64 of the extracted FMU), or "" if unknown. */
void binary_dir(char *out, size_t n) {
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
int read_first_line(const char *path, char *out, size_t n) {
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
int query_python(const char *exe, PyLocation *loc, char *err, size_t nerr) {
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
int locate_python(PyLocation *loc, char *err, size_t nerr) {
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

