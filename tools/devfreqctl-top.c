/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* devfreqctl top: a full-screen live view of every device, redrawn from the daemon's signals
 * (PropertiesChanged, InterfacesAdded/Removed), never from a timer; a device's detail shows its
 * requests and its time in state. Without a terminal on standard output: the status table. */

#include <curses.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <locale.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <systemd/sd-event.h>
#include <term.h>
#include <unistd.h>
#include <wchar.h>

#include "devfreqctl.h"
#include "units.h"

enum sort_key {
        SORT_NAME,
        SORT_FREQUENCY,
        SORT_LOAD,
        _SORT_MAX,
};

static const char *const sort_names[_SORT_MAX] = { "name", "frequency", "load" };

struct top {
        struct ctl *c;
        sd_event *event;
        struct ctl_objects objects;
        struct props manager;
        bool present; /* devfreqd is on the bus */
        bool dirty;   /* redraw after this round of events */
        enum sort_key sort;
        size_t selected;          /* index into the sorted devices */
        char *selected_path;      /* and the device there, kept across sorts and changes */
        char *detail;             /* the path of the device whose detail is open, or NULL */
        struct ctl_object **rows; /* the devices, sorted as shown: into `objects`, rebuilt before use */
        size_t n_rows;
};

/* --- the cache of objects ---------------------------------------------------------------------- */

static void *mfree(void *p) {
        free(p);
        return NULL;
}

static void top_clear(struct top *t) {
        objects_clear(&t->objects);
        t->rows = mfree(t->rows);
        t->n_rows = 0;
        props_done(&t->manager);
        t->manager = (struct props){};
}

static void top_done(struct top *t) {
        top_clear(t);
        free(t->detail);
        free(t->selected_path);
        /* The bus holds the event while attached, and the event's sources point at the bus: part
         * them, so that both are freed (the bus is closed by the caller). */
        if (t->event)
                (void) sd_bus_detach_event(t->c->bus);
        sd_event_unref(t->event);
}

/* Every object and the manager's properties; 0 when devfreqd is not on the bus (yet). */
static int load(struct top *t) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        int r;

        top_clear(t);
        t->dirty = true;
        t->present = false;
        r = objects_load(&t->objects, t->c->bus, &error);
        if (r <= 0)
                return r;
        r = sd_bus_call_method(
                t->c->bus, BUS_NAME, OBJECT_ROOT, IFACE_PROPERTIES, "GetAll", &error, &reply, "s",
                IFACE_MANAGER);
        if (r >= 0)
                r = props_read(reply, &t->manager);
        if (r < 0)
                return r;
        t->present = true;
        return 1;
}

/* A device's properties again: what changed came with the signal, but Load, TargetFrequency and
 * TransitionCount never signal, so one read per changed device and redraw keeps the row whole. */
static void reread(struct top *t, struct ctl_object *o) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        struct props ps = {};

        if (sd_bus_call_method(
                    t->c->bus, BUS_NAME, o->path, IFACE_PROPERTIES, "GetAll", &error, &reply, "s",
                    o->request ? IFACE_REQUEST : IFACE_DEVICE) < 0 ||
            props_read(reply, &ps) < 0)
                return;
        props_done(&o->props);
        o->props = ps;
}

/* --- signals from the daemon ------------------------------------------------------------------ */

static int on_properties_changed(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        struct top *t = userdata;
        const char *path = sd_bus_message_get_path(msg), *iface;
        _cleanup_(props_done) struct props changed = {};
        struct ctl_object *o;

        if (sd_bus_message_read_basic(msg, 's', &iface) <= 0 || !path || props_read(msg, &changed) < 0)
                return 0;
        if (streq(iface, IFACE_MANAGER)) {
                for (size_t i = 0; i < changed.n; i++)
                        if (props_set(&t->manager, &changed.v[i]) < 0)
                                return -ENOMEM;
                t->dirty = true;
                return 0;
        }
        o = objects_find(&t->objects, path);
        if (!o)
                return 0;
        for (size_t i = 0; i < changed.n; i++)
                if (props_set(&o->props, &changed.v[i]) < 0)
                        return -ENOMEM;
        o->stale = !o->request;
        t->dirty = true;
        return 0;
}

/* A new object, or new properties for one: the rows are sorted again at the redraw. */
static int on_object(const char *path, const char *iface, struct props *ps, void *userdata) {
        struct top *t = userdata;
        int r;

        r = objects_put(&t->objects, path, iface, ps);
        if (r > 0)
                t->dirty = true;
        return r;
}

static int on_interfaces_added(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        const char *path;

        if (sd_bus_message_read_basic(msg, 'o', &path) > 0)
                (void) read_interfaces(msg, path, on_object, userdata);
        return 0;
}

static int on_interfaces_removed(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        struct top *t = userdata;
        const char *path;
        bool request;

        if (objects_removed(msg, &path, &request) <= 0)
                return 0;
        if (objects_remove(&t->objects, path))
                t->dirty = true;
        if (t->detail && streq(t->detail, path))
                t->detail = mfree(t->detail);
        return 0;
}

static int on_name_owner_changed(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        struct top *t = userdata;
        const char *name, *old, *new;

        if (sd_bus_message_read(msg, "sss", &name, &old, &new) <= 0 || !streq(name, BUS_NAME))
                return 0;
        t->detail = mfree(t->detail);
        if (!*new) {
                top_clear(t);
                t->present = false;
                t->dirty = true;
                return 0;
        }
        if (load(t) < 0)
                t->present = false;
        return 0;
}

static int on_disconnected(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        struct top *t = userdata;
        return sd_event_exit(t->event, EXIT_DAEMON);
}

/* --- text on the screen ---------------------------------------------------------------------------- */

/* The character at `s` as it is drawn: its length in bytes, its width in columns in *cols, and
 * whether it is drawn as it is. A byte the locale cannot decode, or a character that is not
 * printable (a control character among them), is drawn as one '?': nothing in a string moves the
 * cursor, or takes more columns than counted. 0 at the end of `s`. */
static size_t char_at(const char *s, int *cols, bool *printable) {
        mbstate_t state = {};
        wchar_t wc;
        size_t n;

        if (!*s)
                return 0;
        n = mbrtowc(&wc, s, strnlen(s, MB_LEN_MAX), &state);
        *cols = n != 0 && n < (size_t) -2 ? wcwidth(wc) : -1;
        *printable = *cols >= 0;
        if (*printable)
                return n;
        *cols = 1;
        return n != 0 && n < (size_t) -2 ? n : 1;
}

/* Draws `s` at the cursor within `cols` columns, whole characters only. The columns used. */
static int put_text(const char *s, int cols) {
        int used = 0, w;
        bool printable;

        for (size_t n; (n = char_at(s, &w, &printable)) > 0 && used + w <= cols; s += n, used += w)
                if (printable)
                        addnstr(s, (int) n);
                else
                        addch('?');
        return used;
}

/* `s` in `width` columns, in buf (size bytes): cut after the last whole character that fits, or
 * padded with spaces; with !cut, a longer `s` is kept whole (up to size). Columns, not bytes:
 * printf's %-12.12s would cut a UTF-8 sequence in half and pad by bytes. */
static const char *cell(char *buf, size_t size, const char *s, int width, bool cut) {
        size_t len = 0;
        int used = 0, w;
        bool printable;

        for (size_t n; (n = char_at(s, &w, &printable)) > 0; s += n, used += w) {
                if (!printable)
                        n = 1;
                if ((cut && used + w > width) || len + n >= size)
                        break;
                if (printable)
                        memcpy(buf + len, s, n);
                else
                        buf[len] = '?';
                len += n;
        }
        for (; used < width && len + 1 < size; used++)
                buf[len++] = ' ';
        buf[len] = '\0';
        return buf;
}

/* A line of text from column x of line y, cut at the right edge of the screen: curses is never
 * handed more than fits, so nothing wraps onto the next line. */
_printf_(3, 4) static void put_line(int y, int x, const char *fmt, ...) {
        char *s;
        va_list ap;
        int r;

        if (y < 0 || y >= LINES || x < 0 || x >= COLS)
                return;
        va_start(ap, fmt);
        r = vasprintf(&s, fmt, ap);
        va_end(ap);
        if (r < 0)
                return;
        move(y, x);
        (void) put_text(s, COLS - x);
        free(s);
}

/* --- drawing ----------------------------------------------------------------------------------- */

static int compare_names(const struct ctl_object *a, const struct ctl_object *b) {
        return strcmp(props_str(&a->props, "Name"), props_str(&b->props, "Name"));
}

static enum sort_key current_sort;

static int compare_rows(const void *x, const void *y) {
        const struct ctl_object *a = *(struct ctl_object *const *) x, *b = *(struct ctl_object *const *) y;
        const char *key = current_sort == SORT_FREQUENCY ? "CurrentFrequency" : "Load";
        uint64_t ka, kb;

        if (current_sort == SORT_NAME)
                return compare_names(a, b);
        ka = props_num(&a->props, key);
        kb = props_num(&b->props, key);
        if (ka != kb)
                return ka > kb ? -1 : 1; /* the busiest, the fastest first */
        return compare_names(a, b);
}

static int select_row(struct top *t, size_t i) {
        t->selected = i;
        t->selected_path = mfree(t->selected_path);
        if (i >= t->n_rows)
                return 0;
        t->selected_path = strdup(t->rows[i]->path);
        return t->selected_path ? 0 : -ENOMEM;
}

static int sort_rows(struct top *t) {
        size_t n = 0;

        free(t->rows);
        t->rows = calloc(t->objects.n + 1, sizeof(struct ctl_object *));
        if (!t->rows)
                return -ENOMEM;
        for (size_t i = 0; i < t->objects.n; i++)
                if (!t->objects.v[i].request)
                        t->rows[n++] = &t->objects.v[i];
        t->n_rows = n;
        current_sort = t->sort;
        qsort(t->rows, n, sizeof(t->rows[0]), compare_rows);
        for (size_t i = 0; t->selected_path && i < n; i++)
                if (streq(t->rows[i]->path, t->selected_path))
                        t->selected = i;
        if (t->selected >= n)
                t->selected = n > 0 ? n - 1 : 0;
        return select_row(t, t->selected);
}

/* The lowest and highest frequency of the table (every point, enabled or not). */
static void table_span(const struct props *ps, uint64_t *lo, uint64_t *hi) {
        const struct prop *opps = props_get(ps, "OperatingPoints");

        *lo = UINT64_MAX;
        *hi = 0;
        for (size_t i = 0; opps && opps->opps && i < opps->n; i++) {
                *lo = MIN(*lo, opps->opps[i].freq);
                *hi = MAX(*hi, opps->opps[i].freq);
        }
}

static size_t bar_cell(uint64_t f, uint64_t lo, uint64_t hi, size_t width) {
        if (f <= lo || hi <= lo)
                return 0;
        if (f >= hi)
                return width - 1;
        return (size_t) ((unsigned __int128) (f - lo) * (width - 1) / (hi - lo));
}

/* "[---=====#===----]": the table from its lowest to its highest point, '=' the effective range,
 * '#' the current frequency, '-' outside the range. `buf` holds width + 3 bytes. */
static void format_bar(char *buf, size_t width, const struct props *ps) {
        uint64_t lo, hi;
        size_t from, to, at;

        table_span(ps, &lo, &hi);
        buf[0] = '[';
        buf[width + 1] = ']';
        buf[width + 2] = '\0';
        if (hi == 0) {
                memset(buf + 1, '?', width);
                return;
        }
        from = bar_cell(props_num(ps, "MinFrequency"), lo, hi, width);
        to = bar_cell(props_num(ps, "MaxFrequency"), lo, hi, width);
        at = bar_cell(props_num(ps, "CurrentFrequency"), lo, hi, width);
        for (size_t i = 0; i < width; i++)
                buf[1 + i] = i >= from && i <= to ? '=' : '-';
        buf[1 + at] = '#';
}

static void draw_header(struct top *t) {
        _cleanup_free_ char *profile = NULL;
        const char *version = props_str(&t->manager, "Version");

        if (ctl_profile_phrase(&t->manager, &profile) != EXIT_SUCCESS)
                return;
        attron(A_REVERSE);
        mvhline(0, 0, ' ' | A_REVERSE, COLS);
        put_line(
                0, 0, " devfreqd %s  Profile: %s  Devices: %zu  Sort: %s", version, profile, t->n_rows,
                sort_names[t->sort]);
        attroff(A_REVERSE);
}

#define NAME_W 12
#define KIND_W 8
#define MODE_W 7
#define GOV_W 16
#define FREQ_W 10
#define LOAD_W 5
#define REQ_W 4
#define CAP_W 10

/* A row but its bar: the selection mark, then each column with a space between two. */
#define ROW_W (1 + NAME_W + 1 + KIND_W + 1 + MODE_W + 1 + GOV_W + 1 + FREQ_W + 1 + LOAD_W + 1 + REQ_W)

/* The bar's cells: what the other columns leave of the line, its brackets and a space aside, at
 * most 60. Below 8 cells the bar is left out (0), so that the numbers keep their place; a line
 * still too long is cut at the right edge. */
static size_t bar_width(bool caps) {
        int w = COLS - ROW_W - (caps ? 1 + CAP_W : 0) - 3;
        return w < 8 ? 0 : (size_t) MIN(w, 60);
}

static void draw_row(int y, const struct ctl_object *o, size_t width, bool caps, bool selected) {
        const struct props *ps = &o->props;
        const struct prop *requests = props_get(ps, "Requests");
        char freq[DF_FREQ_STRING_MAX], cap[1 + CAP_W + DF_FREQ_STRING_MAX] = "", load[8], bar[64 + 4] = "";
        char name[64], kind[64], mode[64], governor[64];

        if (width > 0) {
                format_bar(bar, width, ps);
                strcat(bar, " ");
        }
        if (props_num(ps, "PollingInterval") > 0)
                snprintf(load, sizeof(load), "%" PRIu64 "%%", props_num(ps, "Load"));
        else
                snprintf(load, sizeof(load), "-");
        if (caps)
                snprintf(
                        cap, sizeof(cap), " %*s", CAP_W,
                        props_num(ps, "ThermalCap") > 0 ?
                                df_format_frequency(freq, props_num(ps, "ThermalCap")) :
                                "-");
        df_format_frequency(freq, props_num(ps, "CurrentFrequency"));
        if (selected)
                attron(A_BOLD);
        put_line(
                y, 0, "%c%s %s %s %s %s%*s %*s %*zu%s", selected ? '>' : ' ',
                cell(name, sizeof(name), props_str(ps, "Name"), NAME_W, true),
                cell(kind, sizeof(kind), props_str(ps, "Kind"), KIND_W, true),
                cell(mode, sizeof(mode), props_str(ps, "Mode"), MODE_W, true),
                cell(governor, sizeof(governor), props_str(ps, "Governor"), GOV_W, true), bar, FREQ_W, freq,
                LOAD_W, load, REQ_W, requests ? requests->n : 0, cap);
        if (selected)
                attroff(A_BOLD);
}

static bool any_cap(const struct top *t) {
        for (size_t i = 0; i < t->n_rows; i++)
                if (props_num(&t->rows[i]->props, "ThermalCap") > 0)
                        return true;
        return false;
}

static void draw_list(struct top *t) {
        bool caps = any_cap(t);
        size_t width = bar_width(caps);

        attron(A_UNDERLINE);
        put_line(
                2, 0, " %-*s %-*s %-*s %-*s %-*s%s%*s %*s %*s%s%*s", NAME_W, "NAME", KIND_W, "KIND", MODE_W,
                "MODE", GOV_W, "GOVERNOR", width > 0 ? (int) width + 2 : 0, width > 0 ? "RANGE" : "",
                width > 0 ? " " : "", FREQ_W, "CURRENT", LOAD_W, "LOAD", REQ_W, "REQ", caps ? " " : "",
                caps ? CAP_W : 0, caps ? "CAP" : "");
        attroff(A_UNDERLINE);
        for (size_t i = 0; i < t->n_rows && (int) i + 3 < LINES - 1; i++)
                draw_row((int) i + 3, t->rows[i], width, caps, i == t->selected);
        if (t->n_rows == 0)
                put_line(3, 1, "No devices.");
        put_line(LINES - 1, 0, "q quit  s sort  j/k or arrows select  Enter detail");
}

/* --- a device's detail --------------------------------------------------------------------------- */

static int draw_requests(struct top *t, const struct ctl_object *d, int y) {
        size_t n = 0;

        attron(A_UNDERLINE);
        put_line(y++, 0, " %-14s %-12s %-10s %-16s %s", "TYPE", "VALUE", "OWNER", "APPLICATION", "REASON");
        attroff(A_UNDERLINE);
        for (size_t i = 0; i < t->objects.n && y < LINES - 2; i++) {
                const struct props *ps = &t->objects.v[i].props;
                char value[32], owner[256], application[256];

                if (!t->objects.v[i].request || !streq(props_str(ps, "Device"), d->path))
                        continue;
                put_line(
                        y++, 0, " %-14s %-12s %s %s %s", props_str(ps, "Type"),
                        format_request_value(value, props_str(ps, "Type"), props_num(ps, "Value")),
                        cell(owner, sizeof(owner), props_str(ps, "Owner"), 10, false),
                        cell(application, sizeof(application), props_str(ps, "ApplicationId"), 16, false),
                        props_str(ps, "Reason"));
                n++;
        }
        if (n == 0)
                put_line(y++, 1, "No requests.");
        return y + 1;
}

/* An `at` array of a reply, copied; its length in *n. */
static int read_uint64s(sd_bus_message *m, uint64_t **ret, size_t *n) {
        const void *data;
        size_t size;
        int r;

        r = sd_bus_message_read_array(m, 't', &data, &size);
        if (r < 0)
                return r;
        *n = size / sizeof(uint64_t);
        *ret = malloc(size + sizeof(uint64_t));
        if (!*ret)
                return -ENOMEM;
        memcpy(*ret, data, size);
        return 0;
}

/* Time in state as a histogram, one line per frequency, bars scaled to the longest. */
static void draw_histogram(struct top *t, const struct ctl_object *d, int y) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_free_ uint64_t *freqs = NULL, *times = NULL;
        uint64_t longest = 0, total = 0;
        size_t n_freqs = 0, n_times = 0;
        int width = MAX(8, MIN(COLS - 30, 60));
        char stars[60 + 1];

        put_line(y++, 0, " Time in state:");
        if (sd_bus_call_method(
                    t->c->bus, BUS_NAME, d->path, IFACE_DEVICE, "GetStatistics", &error, &reply, NULL) < 0 ||
            read_uint64s(reply, &freqs, &n_freqs) < 0 || read_uint64s(reply, &times, &n_times) < 0) {
                put_line(y, 1, "(no statistics: %s)", error.message ? error.message : "bad reply");
                return;
        }
        for (size_t i = 0; i < n_times; i++) {
                longest = MAX(longest, times[i]);
                total += times[i];
        }
        for (size_t i = 0; i < n_freqs && i < n_times && y < LINES - 1; i++) {
                char freq[DF_FREQ_STRING_MAX];
                int cells = longest > 0 ? (int) (times[i] * (uint64_t) width / longest) : 0;

                memset(stars, '*', (size_t) cells);
                stars[cells] = '\0';
                put_line(
                        y, 0, " %10s %5.1f%% %s", df_format_frequency(freq, freqs[i]),
                        total > 0 ? 100.0 * (double) times[i] / (double) total : 0.0, stars);
                y++;
        }
}

/* The aggregates the requests make, the ones that bind the range: "QoS: min 600 MHz max 400 MHz". */
static void draw_qos(const struct props *ps, int *y) {
        uint64_t min = props_num(ps, "QosMinFrequency"), max = props_num(ps, "QosMaxFrequency");
        uint64_t latency = props_num(ps, "QosLatency");
        char a[4 + DF_FREQ_STRING_MAX] = "", b[4 + DF_FREQ_STRING_MAX] = "", f[DF_FREQ_STRING_MAX], c[48] = "";

        if (min == 0 && max == UINT64_MAX && latency == UINT32_MAX)
                return;
        if (min > 0)
                snprintf(a, sizeof(a), " min %s", df_format_frequency(f, min));
        if (max != UINT64_MAX)
                snprintf(b, sizeof(b), " max %s", df_format_frequency(f, max));
        if (latency != UINT32_MAX)
                snprintf(c, sizeof(c), " latency %" PRIu64 " us", latency);
        put_line((*y)++, 0, " QoS:%s%s%s", a, b, c);
}

static void draw_detail(struct top *t, const struct ctl_object *d) {
        const struct props *ps = &d->props;
        char freq[DF_FREQ_STRING_MAX], min[DF_FREQ_STRING_MAX], max[DF_FREQ_STRING_MAX];
        int y = 2;

        attron(A_BOLD);
        put_line(
                y++, 0, " %s (%s, %s, %s)", props_str(ps, "Name"), props_str(ps, "Kind"),
                props_str(ps, "Mode"), props_str(ps, "Governor"));
        attroff(A_BOLD);
        put_line(
                y++, 0, " current %s  range %s - %s  transitions %" PRIu64,
                df_format_frequency(freq, props_num(ps, "CurrentFrequency")),
                df_format_frequency(min, props_num(ps, "MinFrequency")),
                df_format_frequency(max, props_num(ps, "MaxFrequency")), props_num(ps, "TransitionCount"));
        draw_qos(ps, &y);
        if (props_num(ps, "ThermalCap") > 0)
                put_line(y++, 0, " thermal cap %s", df_format_frequency(freq, props_num(ps, "ThermalCap")));
        if (*props_str(ps, "LastError"))
                put_line(y++, 0, " last error: %s", props_str(ps, "LastError"));
        y++;
        y = draw_requests(t, d, y);
        draw_histogram(t, d, y);
        put_line(LINES - 1, 0, "q quit  Esc/Left/Backspace back");
}

static void redraw(struct top *t) {
        erase();
        if (!t->present) {
                put_line(0, 0, "devfreqd is not on the bus; waiting for it. Press q to quit.");
                refresh();
                t->dirty = false;
                return;
        }
        if (sort_rows(t) < 0)
                return;
        draw_header(t);
        if (t->detail && objects_find(&t->objects, t->detail))
                draw_detail(t, objects_find(&t->objects, t->detail));
        else
                draw_list(t);
        refresh();
        t->dirty = false;
}

/* --- keys, resizing, the loop ------------------------------------------------------------------- */

static int on_key(struct top *t, int key) {
        /* The rows as they are now: objects may have come and gone since the last redraw. */
        if (sort_rows(t) < 0)
                return -ENOMEM;
        switch (key) {
        case 'q':
        case 'Q':
                return sd_event_exit(t->event, EXIT_SUCCESS);
        case 's':
                t->sort = (t->sort + 1) % _SORT_MAX;
                break;
        case 'j':
        case KEY_DOWN:
                if (!t->detail && t->selected + 1 < t->n_rows && select_row(t, t->selected + 1) < 0)
                        return -ENOMEM;
                break;
        case 'k':
        case KEY_UP:
                if (!t->detail && t->selected > 0 && select_row(t, t->selected - 1) < 0)
                        return -ENOMEM;
                break;
        case '\n':
        case '\r':
        case KEY_ENTER:
        case KEY_RIGHT:
                if (!t->detail && t->selected < t->n_rows) {
                        t->detail = strdup(t->rows[t->selected]->path);
                        if (!t->detail)
                                return -ENOMEM;
                }
                break;
        case 27: /* Esc */
        case KEY_LEFT:
        case KEY_BACKSPACE:
        case 127:
                t->detail = mfree(t->detail);
                break;
        default:
                return 0;
        }
        t->dirty = true;
        return 0;
}

static int on_input(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        struct top *t = userdata;
        int key, r;

        if (revents & (EPOLLHUP | EPOLLERR))
                return sd_event_exit(t->event, EXIT_SUCCESS);
        while ((key = getch()) != ERR) {
                r = on_key(t, key);
                if (r < 0) /* the loop ends with it, and cmd_top() gives the terminal back */
                        return sd_event_exit(t->event, r);
        }
        return 0;
}

static int on_resize(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata) {
        struct top *t = userdata;
        struct winsize ws;

        if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 && ws.ws_col > 0)
                resizeterm(ws.ws_row, ws.ws_col);
        t->dirty = true;
        return 0;
}

static int on_quit(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata) {
        struct top *t = userdata;
        return sd_event_exit(t->event, EXIT_SUCCESS);
}

/* After every round of events: one redraw for however many signals came in it. */
static int on_post(sd_event_source *s, void *userdata) {
        struct top *t = userdata;

        for (size_t i = 0; i < t->objects.n; i++)
                if (t->objects.v[i].stale) {
                        t->objects.v[i].stale = false;
                        reread(t, &t->objects.v[i]);
                }
        if (t->dirty)
                redraw(t);
        return 0;
}

static int watch(struct top *t) {
        static const struct ctl_object_handlers handlers = {
                .properties_changed = on_properties_changed,
                .interfaces_added = on_interfaces_added,
                .interfaces_removed = on_interfaces_removed,
                .name_owner_changed = on_name_owner_changed,
                .disconnected = on_disconnected,
        };

        return ctl_watch_objects(t->c, &handlers, t);
}

static int setup_events(struct top *t) {
        sigset_t mask;
        int r;

        sigemptyset(&mask);
        sigaddset(&mask, SIGINT);
        sigaddset(&mask, SIGTERM);
        sigaddset(&mask, SIGWINCH);
        if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0)
                return -errno;
        r = sd_event_new(&t->event);
        if (r >= 0)
                r = sd_event_add_signal(t->event, NULL, SIGINT, on_quit, t);
        if (r >= 0)
                r = sd_event_add_signal(t->event, NULL, SIGTERM, on_quit, t);
        if (r >= 0)
                r = sd_event_add_signal(t->event, NULL, SIGWINCH, on_resize, t);
        if (r >= 0)
                r = sd_event_add_io(t->event, NULL, STDIN_FILENO, EPOLLIN, on_input, t);
        if (r >= 0)
                r = sd_event_add_post(t->event, NULL, on_post, t);
        if (r >= 0)
                r = watch(t);
        if (r >= 0)
                r = sd_bus_attach_event(t->c->bus, t->event, SD_EVENT_PRIORITY_NORMAL);
        return r;
}

int cmd_top(struct ctl *c) {
        _cleanup_(top_done) struct top t = { .c = c };
        SCREEN *screen;
        int r;

        if (!isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO))
                return cmd_status(c);
        /* The terminal's character set, so that curses draws a reason or an application id in
         * UTF-8 as the text it is; numbers stay as devfreqctl prints them everywhere else. */
        (void) setlocale(LC_ALL, "");
        (void) setlocale(LC_NUMERIC, "C");
        /* Signals blocked before curses starts, so SIGWINCH reaches the loop, not a handler. */
        r = setup_events(&t);
        if (r < 0)
                return ctl_fail(NULL, "cannot watch the bus: %s", strerror(-r));
        /* After the matches: a change between the two is then seen twice, never missed. */
        r = load(&t);
        if (r < 0)
                return ctl_fail(NULL, "cannot read the devices: %s", strerror(-r));
        /* newterm, not initscr: a terminal curses cannot drive is an answer, not an exit. */
        screen = newterm(NULL, stdout, stdin);
        if (screen && !tigetstr((char *) "cup")) {
                endwin();
                screen = (delscreen(screen), NULL);
        }
        if (!screen) {
                fprintf(stderr,
                        "%s: this terminal cannot move the cursor (TERM=%s); the status table instead\n",
                        program_invocation_short_name, strna(getenv("TERM")));
                return cmd_status(c);
        }
        cbreak();
        noecho();
        nodelay(stdscr, TRUE);
        keypad(stdscr, TRUE);
        curs_set(0);
        set_escdelay(25);
        redraw(&t);
        r = sd_event_loop(t.event);
        endwin();
        delscreen(screen);
        if (r < 0)
                return ctl_fail(NULL, "the event loop failed: %s", strerror(-r));
        if (r == EXIT_DAEMON) /* said after endwin, where it stays on the terminal */
                return ctl_fail(NULL, "lost the connection to the bus");
        return r;
}
