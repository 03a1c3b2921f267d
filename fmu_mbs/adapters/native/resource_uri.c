/* resource_uri.c: fmuResourceLocation, an RFC 3986 file URI (percent-encoded bytes), decoded to a folder. */
#include "shim.h"

int hexval(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Decode the path of a file URI into out; strict: query and fragment end the path (RFC 3986), lenient: '?' and
 * '#' are kept (hosts that do not encode them). 0 on success, else err says why. */
int uri_to_path(const char *uri, int strict, char *out, size_t n, char *err, size_t nerr) {
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
int resources_dir(const char *uri, char *out, size_t n, char *err, size_t nerr) {
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

