/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* devfreqctl: property values read off the bus into plain structs, and their text for people
 * ("800 MHz", "none" for the no-request sentinels). */

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "devfreqctl.h"
#include "strv.h"
#include "units.h"

void prop_done(struct prop *p) {
        free(p->name);
        free(p->signature);
        free(p->str);
        for (size_t i = 0; p->strv && p->strv[i]; i++)
                free(p->strv[i]);
        free(p->strv);
        free(p->nums);
        free(p->opps);
        for (size_t i = 0; p->rules && i < p->n; i++) {
                free(p->rules[i].name);
                free(p->rules[i].zone);
        }
        free(p->rules);
        *p = (struct prop){};
}

/* Readers of one array element into p: 1, 0 after the last one, or a negative errno. `type` is
 * the first character of the element's signature ('s' or 'o' tells a string from a path). */
typedef int (*element_reader)(sd_bus_message *m, char type, struct prop *p, size_t *allocated);

/* A string or an object path, type 's' or 'o'. */
static int read_string(sd_bus_message *m, char type, struct prop *p, size_t *allocated) {
        const char *s;
        int r;

        r = sd_bus_message_read_basic(m, type, &s);
        if (r <= 0)
                return r;
        return strv_push(&p->strv, &p->n, s) < 0 ? -ENOMEM : 1;
}

static int read_opp(sd_bus_message *m, char type, struct prop *p, size_t *allocated) {
        struct ctl_opp o;
        int enabled, r;

        r = sd_bus_message_read(m, "(tuub)", &o.freq, &o.microvolt, &o.latency_us, &enabled);
        if (r <= 0)
                return r;
        o.enabled = enabled;
        if (GREEDY_GROW(p->opps, *allocated, p->n + 1) < 0)
                return -ENOMEM;
        p->opps[p->n++] = o;
        return 1;
}

static int read_rule(sd_bus_message *m, char type, struct prop *p, size_t *allocated) {
        const char *name, *zone;
        int tripped, r;
        uint64_t cap;
        int64_t temp;

        r = sd_bus_message_read(m, "(ssbtx)", &name, &zone, &tripped, &cap, &temp);
        if (r <= 0)
                return r;
        if (GREEDY_GROW(p->rules, *allocated, p->n + 1) < 0)
                return -ENOMEM;
        p->rules[p->n] = (struct ctl_rule){
                .name = strdup(name), .zone = strdup(zone), .tripped = tripped, .cap = cap, .millicelsius = temp
        };
        p->n++; /* counted before the check, so that prop_done() frees what was copied */
        return p->rules[p->n - 1].name && p->rules[p->n - 1].zone ? 1 : -ENOMEM;
}

static int read_su_entry(sd_bus_message *m, char type, struct prop *p, size_t *allocated) {
        const char *key;
        uint32_t v;
        int r;

        r = sd_bus_message_read(m, "{su}", &key, &v);
        if (r <= 0)
                return r;
        /* The value's room first: a key is only counted with its value in place. */
        if (GREEDY_GROW(p->nums, *allocated, p->n + 1) < 0)
                return -ENOMEM;
        p->nums[p->n] = v;
        return strv_push(&p->strv, &p->n, key) < 0 ? -ENOMEM : 1;
}

/* An array of `contents`, element by element. */
static int read_array(sd_bus_message *m, const char *contents, element_reader read_one, struct prop *p) {
        size_t allocated = 0;
        int r;

        r = sd_bus_message_enter_container(m, 'a', contents);
        if (r < 0)
                return r;
        while ((r = read_one(m, contents[0], p, &allocated)) > 0)
                ;
        if (r < 0)
                return r;
        return sd_bus_message_exit_container(m);
}

/* The value of one variant; signatures the client does not know are skipped (kept as a name). */
static int read_value(sd_bus_message *m, const char *sig, struct prop *p) {
        const void *data;
        size_t size;
        int r;

        if (streq(sig, "s") || streq(sig, "o")) {
                const char *s;
                r = sd_bus_message_read_basic(m, sig[0], &s);
                if (r < 0)
                        return r;
                p->str = strdup(s);
                return p->str ? 0 : -ENOMEM;
        }
        if (streq(sig, "t"))
                return sd_bus_message_read_basic(m, 't', &p->num);
        if (streq(sig, "u") || streq(sig, "b")) {
                uint32_t v; /* a D-Bus boolean is 32 bits wide too */
                r = sd_bus_message_read_basic(m, sig[0], &v);
                p->num = v;
                return r;
        }
        if (streq(sig, "as") || streq(sig, "ao"))
                return read_array(m, sig + 1, read_string, p);
        if (streq(sig, "at")) {
                r = sd_bus_message_read_array(m, 't', &data, &size);
                if (r < 0)
                        return r;
                p->n = size / sizeof(uint64_t);
                p->nums = malloc(size ? size : 1);
                if (!p->nums)
                        return -ENOMEM;
                memcpy(p->nums, data, size);
                return 0;
        }
        if (streq(sig, "a(tuub)"))
                return read_array(m, "(tuub)", read_opp, p);
        if (streq(sig, "a(ssbtx)"))
                return read_array(m, "(ssbtx)", read_rule, p);
        if (streq(sig, "a{su}"))
                return read_array(m, "{su}", read_su_entry, p);
        return sd_bus_message_skip(m, sig);
}

int prop_read_variant(sd_bus_message *m, const char *name, struct prop *ret) {
        struct prop p = {};
        const char *contents;
        int r;

        r = sd_bus_message_peek_type(m, NULL, &contents);
        if (r < 0)
                return r;
        p.name = strdup(name);
        p.signature = strdup(contents);
        if (!p.name || !p.signature) {
                prop_done(&p);
                return -ENOMEM;
        }
        r = sd_bus_message_enter_container(m, 'v', contents);
        if (r >= 0)
                r = read_value(m, contents, &p);
        if (r >= 0)
                r = sd_bus_message_exit_container(m);
        if (r < 0) {
                prop_done(&p);
                return r;
        }
        *ret = p;
        return 0;
}

void props_done(struct props *ps) {
        for (size_t i = 0; i < ps->n; i++)
                prop_done(&ps->v[i]);
        free(ps->v);
        *ps = (struct props){};
}

/* Replace the property of the same name, or append; takes the contents of *p. */
int props_set(struct props *ps, struct prop *p) {
        struct prop *slot = NULL;

        for (size_t i = 0; i < ps->n && !slot; i++)
                if (streq(ps->v[i].name, p->name)) {
                        slot = &ps->v[i];
                        prop_done(slot);
                }
        if (!slot) {
                slot = GROW(ps->v, ps->n);
                if (!slot)
                        return -ENOMEM;
                ps->n++;
        }
        *slot = TAKE_GENERIC(*p, struct prop, (struct prop){});
        return 0;
}

/* Readers of one dict entry's value, its key read: 0 or a negative errno. */
typedef int (*entry_reader)(sd_bus_message *m, const char *key, void *userdata);

/* A dict whose entries have the signature `entry` ("sv", "sa{sv}", "oa{sa{sv}}"): each key, a
 * string or an object path, to on_entry, which reads the value. */
static int read_dict(sd_bus_message *m, const char *entry, entry_reader on_entry, void *userdata) {
        char contents[32];
        int r;

        (void) snprintf(contents, sizeof(contents), "{%s}", entry);
        r = sd_bus_message_enter_container(m, 'a', contents);
        if (r < 0)
                return r;
        while ((r = sd_bus_message_enter_container(m, 'e', entry)) > 0) {
                const char *key;

                r = sd_bus_message_read_basic(m, entry[0], &key);
                if (r >= 0)
                        r = on_entry(m, key, userdata);
                if (r >= 0)
                        r = sd_bus_message_exit_container(m);
                if (r < 0)
                        return r;
        }
        if (r < 0)
                return r;
        return sd_bus_message_exit_container(m);
}

static int read_property(sd_bus_message *m, const char *name, void *userdata) {
        struct prop p;
        int r;

        r = prop_read_variant(m, name, &p);
        if (r < 0)
                return r;
        r = props_set(userdata, &p);
        prop_done(&p);
        return r;
}

/* An a{sv} of properties, as GetAll and the signals carry them. */
int props_read(sd_bus_message *m, struct props *ret) {
        struct props ps = {};
        int r;

        r = read_dict(m, "sv", read_property, &ps);
        if (r < 0) {
                props_done(&ps);
                return r;
        }
        *ret = ps;
        return 0;
}

const struct prop *props_get(const struct props *ps, const char *name) {
        for (size_t i = 0; i < ps->n; i++)
                if (streq(ps->v[i].name, name))
                        return &ps->v[i];
        return NULL;
}

uint64_t props_num(const struct props *ps, const char *name) {
        const struct prop *p = props_get(ps, name);
        return p ? p->num : 0;
}

const char *props_str(const struct props *ps, const char *name) {
        const struct prop *p = props_get(ps, name);
        return p && p->str ? p->str : "";
}

bool object_iface(const char *iface) {
        return streq(iface, IFACE_DEVICE) || streq(iface, IFACE_REQUEST);
}

/* The last component of an object path, unescaped: the device name or the request id. */
int object_name(const char *path, char **ret) {
        const char *slash = strrchr(path, '/');
        _cleanup_free_ char *prefix = NULL;
        int r;

        if (!slash || slash == path)
                return -EINVAL;
        prefix = strndup(path, slash - path);
        if (!prefix)
                return -ENOMEM;
        r = sd_bus_path_decode(path, prefix, ret);
        if (r < 0)
                return r;
        return r > 0 ? 0 : -EINVAL;
}

const char *format_request_value(char buf[static 32], const char *type, uint64_t value) {
        if (streq(type, "latency"))
                return df_format_duration(buf, value);
        if (streq(type, "max-frequency") && value == UINT64_MAX)
                return strcpy(buf, "none");
        return df_format_frequency(buf, value);
}

/* How a property reads for people; by name first, by signature for the rest. */
enum style {
        STYLE_PLAIN,
        STYLE_FREQUENCY,
        STYLE_FREQUENCY_FLOOR,   /* 0: none */
        STYLE_FREQUENCY_CEILING, /* UINT64_MAX: none */
        STYLE_LATENCY,           /* UINT32_MAX: none */
        STYLE_MILLISECONDS,      /* 0: none */
        STYLE_PERCENT,
        STYLE_OBJECTS,
        STYLE_TIMESTAMP, /* µs since the epoch, 0: none */
        STYLE_TEXT,      /* "": none */
        STYLE_ENERGY,    /* µs at the top point */
};

static const struct {
        const char *name;
        enum style style;
} styles[] = {
        { "CurrentFrequency", STYLE_FREQUENCY },
        { "TargetFrequency", STYLE_FREQUENCY },
        { "MinFrequency", STYLE_FREQUENCY },
        { "MaxFrequency", STYLE_FREQUENCY },
        { "AvailableFrequencies", STYLE_FREQUENCY },
        { "QosMinFrequency", STYLE_FREQUENCY_FLOOR },
        { "QosMaxFrequency", STYLE_FREQUENCY_CEILING },
        { "QosLatency", STYLE_LATENCY },
        { "PollingInterval", STYLE_MILLISECONDS },
        { "Load", STYLE_PERCENT },
        { "Requests", STYLE_OBJECTS },
        { "Devices", STYLE_OBJECTS },
        { "Device", STYLE_OBJECTS },
        { "CreatedUsec", STYLE_TIMESTAMP },
        { "ExpiresUsec", STYLE_TIMESTAMP },
        { "LastError", STYLE_TEXT },
        { "ThermalCap", STYLE_FREQUENCY_FLOOR },
        { "Reason", STYLE_TEXT },
        { "ApplicationId", STYLE_TEXT },
        { "Energy", STYLE_ENERGY },
};

static enum style style_of(const char *name) {
        for (size_t i = 0; i < ELEMENTSOF(styles); i++)
                if (streq(styles[i].name, name))
                        return styles[i].style;
        return STYLE_PLAIN;
}

static void format_number(FILE *f, enum style style, uint64_t v) {
        char buf[DF_FREQ_STRING_MAX];
        struct tm tm;
        time_t t;

        if ((style == STYLE_FREQUENCY_FLOOR && v == 0) ||
            (style == STYLE_FREQUENCY_CEILING && v == UINT64_MAX)) {
                fputs("none", f);
                return;
        }
        switch (style) {
        case STYLE_FREQUENCY:
        case STYLE_FREQUENCY_FLOOR:
        case STYLE_FREQUENCY_CEILING:
                fputs(df_format_frequency(buf, v), f);
                return;
        case STYLE_LATENCY:
                fputs(v == UINT32_MAX ? "none" : df_format_duration(buf, v), f);
                return;
        case STYLE_MILLISECONDS:
                fputs(v == 0 ? "none" : df_format_duration(buf, v * 1000), f);
                return;
        case STYLE_PERCENT:
                fprintf(f, "%" PRIu64 "%%", v);
                return;
        case STYLE_ENERGY:
                fprintf(f, "%" PRIu64 ".%06" PRIu64 " s at the top point", v / 1000000, v % 1000000);
                return;
        case STYLE_TIMESTAMP:
                t = (time_t) (v / 1000000);
                if (v == 0 || !localtime_r(&t, &tm) || strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &tm) == 0)
                        fputs(v == 0 ? "none" : "?", f);
                else
                        fputs(buf, f);
                return;
        default:
                fprintf(f, "%" PRIu64, v);
                return;
        }
}

/*
 * Whether the thermal cap takes point i although the administrator has it enabled (the bus's flag):
 * above the cap, unless it is the lowest they enabled and none is at or under the cap, the point
 * the cap keeps (devfreqd.conf(5)). Then a lower enabled point exists, under the cap or not.
 */
static bool opp_capped(const struct prop *p, size_t i, uint64_t cap) {
        const struct ctl_opp *o = &p->opps[i];

        if (cap == 0 || !o->enabled || o->freq <= cap)
                return false;
        for (size_t k = 0; k < p->n; k++)
                if (p->opps[k].enabled && p->opps[k].freq < o->freq)
                        return true;
        return false;
}

static void format_opp(FILE *f, const struct ctl_opp *o, bool capped) {
        char buf[DF_FREQ_STRING_MAX];

        fputs(df_format_frequency(buf, o->freq), f);
        if (o->microvolt)
                fprintf(f, " %s", df_format_voltage(buf, o->microvolt));
        if (o->latency_us)
                fprintf(f, " latency %s", df_format_duration(buf, o->latency_us));
        if (!o->enabled)
                fputs(" (disabled)", f);
        else if (capped)
                fputs(" (capped)", f);
}

/* Strings, or object paths shown by their last component (device names, request ids). */
static void format_names(FILE *f, enum style style, char *const *v, size_t n) {
        for (size_t i = 0; i < n; i++) {
                _cleanup_free_ char *name = NULL;
                if (i > 0)
                        fputs(style == STYLE_OBJECTS ? ", " : " ", f);
                fputs(style == STYLE_OBJECTS && object_name(v[i], &name) >= 0 ? name : v[i], f);
        }
        if (n == 0)
                fputs("none", f);
}

/* `cap`: the device's ThermalCap, for the points of OperatingPoints it takes. */
static void format_prop(FILE *f, const struct prop *p, uint64_t cap, const char *sep) {
        enum style style = style_of(p->name);
        const char *sig = p->signature;

        if (streq(sig, "s") || (streq(sig, "o") && style != STYLE_OBJECTS)) {
                fputs(style == STYLE_TEXT && !*p->str ? "none" : p->str, f);
        } else if (streq(sig, "t") || streq(sig, "u")) {
                format_number(f, style, p->num);
        } else if (streq(sig, "b")) {
                fputs(yes_no(p->num), f);
        } else if (streq(sig, "o")) {
                format_names(f, style, &p->str, 1);
        } else if (streq(sig, "as") || streq(sig, "ao")) {
                format_names(f, style, p->strv, p->n);
        } else if (streq(sig, "at")) {
                for (size_t i = 0; i < p->n; i++) {
                        fputs(i > 0 ? ", " : "", f);
                        format_number(f, style, p->nums[i]);
                }
                if (p->n == 0)
                        fputs("none", f);
        } else if (streq(sig, "a(tuub)")) {
                for (size_t i = 0; i < p->n; i++) {
                        fputs(i > 0 ? sep : "", f);
                        format_opp(f, &p->opps[i], opp_capped(p, i, cap));
                }
                if (p->n == 0)
                        fputs("none", f);
        } else if (streq(sig, "a{su}")) {
                for (size_t i = 0; i < p->n; i++)
                        fprintf(f, "%s%s=%" PRIu64, i > 0 ? " " : "", p->strv[i], p->nums[i]);
                if (p->n == 0)
                        fputs("none", f);
        } else if (streq(sig, "a(ssbtx)")) {
                for (size_t i = 0; i < p->n; i++) {
                        _cleanup_free_ char *rule = format_rule(&p->rules[i]);
                        fprintf(f, "%s%s", i > 0 ? sep : "", rule ? rule : "?");
                }
                if (p->n == 0)
                        fputs("none", f);
        } else
                fprintf(f, "(a value of type %s)", sig);
}

char *format_rule(const struct ctl_rule *r) {
        char t[DF_TEMPERATURE_STRING_MAX], c[DF_FREQ_STRING_MAX];
        char *s = NULL;

        if (asprintf(
                    &s, "%s: %s at %s, %s, cap %s", r->name, r->zone, df_format_temperature(t, r->millicelsius),
                    r->tripped ? "tripped" : "released", df_format_frequency(c, r->cap)) < 0)
                return NULL;
        return s;
}

/* `sep` goes between the points of OperatingPoints: ", " on one line, or a newline and indent;
 * `cap` is the device's ThermalCap (0: none), which marks the points it takes "(capped)". */
int prop_format(const struct prop *p, uint64_t cap, const char *sep, char **ret) {
        char *text = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&text, &size);

        if (!f)
                return -ENOMEM;
        format_prop(f, p, cap, sep);
        if (fclose(f) != 0) {
                free(text);
                return -ENOMEM;
        }
        *ret = text;
        return 0;
}

/* Where the interfaces of the objects go, and the object being read. */
struct object_reader {
        const char *path;
        managed_object_cb cb;
        void *userdata;
};

/* One interface's a{sv}: a devfreqd interface's properties to the callback, others skipped. */
static int read_interface(sd_bus_message *m, const char *iface, void *userdata) {
        const struct object_reader *o = userdata;
        struct props ps = {};
        int r;

        if (!object_iface(iface))
                return sd_bus_message_skip(m, "a{sv}");
        r = props_read(m, &ps);
        if (r >= 0)
                r = o->cb(o->path, iface, &ps, o->userdata);
        props_done(&ps);
        return r;
}

/* a{sa{sv}}: the interfaces of one object, as GetManagedObjects and InterfacesAdded carry them. */
int read_interfaces(sd_bus_message *m, const char *path, managed_object_cb cb, void *userdata) {
        struct object_reader o = { .path = path, .cb = cb, .userdata = userdata };

        return read_dict(m, "sa{sv}", read_interface, &o);
}

static int read_object(sd_bus_message *m, const char *path, void *userdata) {
        const struct object_reader *o = userdata;

        return read_interfaces(m, path, o->cb, o->userdata);
}

/* ObjectManager.GetManagedObjects: `cb` is called for every devfreqd interface with its
 * properties, and may take them (leaving *ps empty). */
int read_managed_objects(sd_bus_message *m, managed_object_cb cb, void *userdata) {
        struct object_reader o = { .cb = cb, .userdata = userdata };

        return read_dict(m, "oa{sa{sv}}", read_object, &o);
}
