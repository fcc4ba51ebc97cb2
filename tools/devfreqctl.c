/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* devfreqctl: the command-line client of devfreqd — command line, bus connection, error lines,
 * and the commands that are one method call (set-governor, set-frequency, set-tunable, opp, reload). */

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devfreqctl.h"
#include "escape.h"
#include "units.h"

/* --- errors ---------------------------------------------------------------------------------- */

static _printf_(2, 0) void vmessage(const char *subject, const char *fmt, va_list ap) {
        fprintf(stderr, "%s: ", program_invocation_short_name);
        if (subject)
                fprintf(stderr, "%s: ", subject);
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
}

int ctl_fail(const char *subject, const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        vmessage(subject, fmt, ap);
        va_end(ap);
        return EXIT_DAEMON;
}

int ctl_usage(const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        vmessage(NULL, fmt, ap);
        va_end(ap);
        return EXIT_USAGE;
}

/* A message of several lines (a reload's configuration errors, one a line): the first, and how
 * many more, still one line. */
static int bus_error_lines(const char *subject, const char *message) {
        size_t first = strcspn(message, "\n"), more = 0;

        for (const char *p = message + first; *p; p++)
                more += *p == '\n' && p[1] != '\0';
        if (more == 0)
                return ctl_fail(subject, "%.*s", (int) first, message);
        return ctl_fail(
                subject, "%.*s (and %zu more: devfreqd --check-config lists them all)", (int) first, message,
                more);
}

/* One line for a failed call: the daemon's own message, or what the bus said about it. */
int ctl_bus_error(const char *subject, const sd_bus_error *error, int r) {
        if (sd_bus_error_has_names(error, SD_BUS_ERROR_SERVICE_UNKNOWN, SD_BUS_ERROR_NAME_HAS_NO_OWNER))
                return ctl_fail(NULL, "devfreqd is not running (nothing owns %s on this bus)", BUS_NAME);
        if (sd_bus_error_has_names(error, SD_BUS_ERROR_NO_REPLY, SD_BUS_ERROR_TIMEOUT))
                return ctl_fail(subject, "devfreqd did not answer in time");
        if (sd_bus_error_is_set(error) && error->message && strchr(error->message, '\n'))
                return bus_error_lines(subject, error->message);
        if (sd_bus_error_is_set(error))
                return ctl_fail(subject, "%s", error->message ? error->message : error->name);
        return ctl_fail(subject, "%s", strerror(r < 0 ? -r : EIO));
}

/* --- the bus --------------------------------------------------------------------------------- */

/* A transport's name: unix, tcp, nonce-tcp, unixexec, x-machine-unix... */
static bool transport_char(char ch) {
        return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
                ch == '-' || ch == '_' || ch == '.';
}

/* One address, [p, end): TRANSPORT:KEY=VALUE[,KEY=VALUE...] as the D-Bus specification has it
 * ("Server Addresses"), no key or value empty (a last ',' allowed, as libdbus has it). Whether
 * the transport and its keys make sense, and the values' escaping, are sd-bus's to judge. */
static bool address_valid(const char *p, const char *end) {
        const char *start = p, *comma, *equals;

        while (p < end && transport_char(*p))
                p++;
        if (p == start || p == end || *p != ':')
                return false;
        for (p++; p < end; p = comma + 1) {
                comma = memchr(p, ',', (size_t) (end - p));
                if (!comma)
                        comma = end;
                equals = memchr(p, '=', (size_t) (comma - p));
                if (!equals || equals == p || equals + 1 == comma)
                        return false;
        }
        return true;
}

/* A --bus value that is not system or session: one address or several separated by ';' (sd-bus
 * tries them in turn), a last ';' allowed. */
static bool bus_address_valid(const char *s) {
        const char *end = s + strlen(s), *semicolon;

        if (s == end)
                return false;
        for (const char *p = s; p < end; p = semicolon + 1) {
                semicolon = memchr(p, ';', (size_t) (end - p));
                if (!semicolon)
                        semicolon = end;
                if (!address_valid(p, semicolon))
                        return false;
        }
        return true;
}

int ctl_connect(struct ctl *c) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        const char *what = c->bus_address;
        int r;

        if (streq(what, "system"))
                r = sd_bus_open_system(&bus);
        else if (streq(what, "session"))
                r = sd_bus_open_user(&bus);
        else {
                r = sd_bus_new(&bus);
                if (r >= 0)
                        r = sd_bus_set_address(bus, what);
                if (r >= 0)
                        r = sd_bus_set_bus_client(bus, 1);
                if (r >= 0)
                        r = sd_bus_start(bus);
                /* What sd-bus refuses to parse (a key missing or given twice, a bad escape, a
                 * path too long) is the command line's fault, not the bus's. */
                if (r == -EINVAL || r == -E2BIG)
                        return ctl_usage("invalid bus '%s': not a valid D-Bus address", what);
                what = "given";
        }
        if (r < 0)
                return ctl_fail(NULL, "cannot connect to the %s bus: %s", what, strerror(-r));
        /* Like systemctl: polkit may ask the user (through an agent) instead of refusing. */
        r = sd_bus_set_allow_interactive_authorization(bus, 1);
        if (r < 0)
                return ctl_fail(NULL, "cannot set up the bus connection: %s", strerror(-r));
        c->bus = TAKE_PTR(bus);
        return 0;
}

int ctl_device_path(struct ctl *c, const char *name, char **ret) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        const char *path;
        int r;

        r = sd_bus_call_method(
                c->bus, BUS_NAME, OBJECT_ROOT, IFACE_MANAGER, "GetDevice", &error, &reply, "s", name);
        if (r >= 0)
                r = sd_bus_message_read(reply, "o", &path);
        if (r < 0)
                return ctl_bus_error(name, &error, r), -1;
        *ret = strdup(path);
        if (!*ret)
                return ctl_fail(NULL, "out of memory"), -1;
        return 0;
}

int ctl_get_all(struct ctl *c, const char *subject, const char *path, const char *iface, struct props *ret) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        int r;

        r = sd_bus_call_method(c->bus, BUS_NAME, path, IFACE_PROPERTIES, "GetAll", &error, &reply, "s", iface);
        if (r >= 0)
                r = props_read(reply, ret);
        if (r < 0) {
                (void) ctl_bus_error(subject, &error, r);
                return r;
        }
        return 0;
}

int ctl_watch_objects(struct ctl *c, const struct ctl_object_handlers *h, void *userdata) {
        int r;

        r = sd_bus_add_match(
                c->bus, NULL,
                "type='signal',sender='" BUS_NAME "',interface='" IFACE_PROPERTIES "',"
                "member='PropertiesChanged',path_namespace='" OBJECT_ROOT "'",
                h->properties_changed, userdata);
        if (r >= 0)
                r = sd_bus_match_signal(
                        c->bus, NULL, BUS_NAME, OBJECT_ROOT, IFACE_OBJECT_MANAGER, "InterfacesAdded",
                        h->interfaces_added, userdata);
        if (r >= 0)
                r = sd_bus_match_signal(
                        c->bus, NULL, BUS_NAME, OBJECT_ROOT, IFACE_OBJECT_MANAGER, "InterfacesRemoved",
                        h->interfaces_removed, userdata);
        if (r >= 0)
                r = ctl_watch_daemon(c, h->name_owner_changed, h->disconnected, userdata);
        return r;
}

int ctl_watch_daemon(
        struct ctl *c, sd_bus_message_handler_t on_name_owner_changed,
        sd_bus_message_handler_t on_disconnected, void *userdata) {
        int r;

        r = sd_bus_add_match(
                c->bus, NULL,
                "type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',"
                "interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='" BUS_NAME "'",
                on_name_owner_changed, userdata);
        if (r >= 0)
                r = sd_bus_match_signal(
                        c->bus, NULL, "org.freedesktop.DBus.Local", "/org/freedesktop/DBus/Local",
                        "org.freedesktop.DBus.Local", "Disconnected", on_disconnected, userdata);
        return r;
}

/* Resolve the device, call one of its methods, report a refusal: the exit status. */
static int call_device(struct ctl *c, const char *name, const char *member, const char *types, ...) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_free_ char *path = NULL;
        va_list ap;
        int r;

        if (ctl_device_path(c, name, &path) < 0)
                return EXIT_DAEMON;
        va_start(ap, types);
        r = sd_bus_call_methodv(c->bus, BUS_NAME, path, IFACE_DEVICE, member, &error, NULL, types, ap);
        va_end(ap);
        if (r < 0)
                return ctl_bus_error(name, &error, r);
        return EXIT_SUCCESS;
}

/* --- values from the command line -------------------------------------------------------------- */

/* No value takes a sign. getopt takes a negative one for an option (unknown_option()); after "--"
 * it comes here. */
static bool negative(const char *s) {
        return s[0] == '-' && s[1] >= '0' && s[1] <= '9';
}

static int negative_value(const char *s) {
        return ctl_usage("%s: a value cannot be negative", s);
}

static int parse_frequency(const char *s, uint64_t *ret) {
        if (negative(s))
                return negative_value(s);
        if (df_parse_frequency(s, ret) < 0)
                return ctl_usage("invalid frequency '%s' (use e.g. 800MHz, 1.2GHz or a number of Hz)", s);
        return 0;
}

static int parse_request_type(const char *s, const char **ret_type) {
        if (streq(s, "min") || streq(s, "min-frequency"))
                *ret_type = "min-frequency";
        else if (streq(s, "max") || streq(s, "max-frequency"))
                *ret_type = "max-frequency";
        else if (streq(s, "latency"))
                *ret_type = "latency";
        else
                return ctl_usage("unknown request type '%s' (min, max or latency)", s);
        return 0;
}

static int parse_request_value(const char *type, const char *s, uint64_t *ret) {
        uint32_t usec;

        if (!streq(type, "latency"))
                return parse_frequency(s, ret);
        if (negative(s))
                return negative_value(s);
        if (df_parse_latency(s, &usec) < 0)
                return ctl_usage("invalid latency '%s' (use a duration such as 200us or 2ms)", s);
        *ret = usec;
        return 0;
}

/* The values of a command, into c before the bus is reached: 0, or EXIT_USAGE after saying why. */

static int parse_set_frequency(struct ctl *c) {
        return parse_frequency(c->args[1], &c->value);
}

static int parse_set_tunable(struct ctl *c) {
        uint32_t value;

        if (negative(c->args[2]))
                return negative_value(c->args[2]);
        if (df_safe_atou32(c->args[2], &value) < 0)
                return ctl_usage("invalid tunable value '%s' (a whole number)", c->args[2]);
        c->value = value;
        return 0;
}

static int parse_opp(struct ctl *c) {
        if (!streq(c->args[1], "enable") && !streq(c->args[1], "disable"))
                return ctl_usage("opp wants enable or disable, not '%s'", c->args[1]);
        c->enable = streq(c->args[1], "enable");
        return parse_frequency(c->args[2], &c->value);
}

static int parse_request(struct ctl *c) {
        if (parse_request_type(c->args[1], &c->type) != 0)
                return EXIT_USAGE;
        return parse_request_value(c->type, c->args[2], &c->value);
}

/* --- one-call commands ------------------------------------------------------------------------- */

static int cmd_set_governor(struct ctl *c) {
        return call_device(c, c->args[0], "SetGovernor", "s", c->args[1]);
}

static int cmd_set_frequency(struct ctl *c) {
        return call_device(c, c->args[0], "SetFrequency", "t", c->value);
}

static int cmd_set_tunable(struct ctl *c) {
        return call_device(c, c->args[0], "SetTunable", "su", c->args[1], (uint32_t) c->value);
}

static int cmd_opp(struct ctl *c) {
        return call_device(c, c->args[0], "SetOperatingPoint", "tb", c->value, (int) c->enable);
}

static int cmd_reload(struct ctl *c) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        int r;

        r = sd_bus_call_method(c->bus, BUS_NAME, OBJECT_ROOT, IFACE_MANAGER, "Reload", &error, NULL, NULL);
        if (r < 0)
                return ctl_bus_error(NULL, &error, r);
        return EXIT_SUCCESS;
}

/* --- the command line -------------------------------------------------------------------------- */

enum {
        NEEDS_JSON = 1 << 0, /* a reading command: --json allowed */
        NEEDS_REQUEST_OPTIONS = 1 << 1,
        NEEDS_COMMAND = 1 << 2,
};

static const struct command {
        const char *name;
        size_t min_args, max_args;
        unsigned flags;
        int (*run)(struct ctl *c);
        /* Its values into c, before the bus is reached: 0, or EXIT_USAGE after saying why. */
        int (*parse)(struct ctl *c);
} commands[] = {
        { "status", 0, 0, NEEDS_JSON, cmd_status },
        { "show", 1, 1, NEEDS_JSON, cmd_show },
        { "set-governor", 2, 2, 0, cmd_set_governor },
        { "set-frequency", 2, 2, 0, cmd_set_frequency, parse_set_frequency },
        { "set-tunable", 3, 3, 0, cmd_set_tunable, parse_set_tunable },
        { "opp", 3, 3, 0, cmd_opp, parse_opp },
        { "request", 3, 3, NEEDS_REQUEST_OPTIONS, cmd_request, parse_request },
        { "hold", 3, 3, NEEDS_REQUEST_OPTIONS | NEEDS_COMMAND, cmd_hold, parse_request },
        { "requests", 0, 1, NEEDS_JSON, cmd_requests },
        { "stats", 1, 1, NEEDS_JSON, cmd_stats },
        { "monitor", 0, 0, 0, cmd_monitor },
        { "top", 0, 0, 0, cmd_top },
        { "reload", 0, 0, 0, cmd_reload },
        { "profile", 0, 2, NEEDS_JSON, cmd_profile, parse_profile },
        { "thermal", 0, 0, NEEDS_JSON, cmd_thermal },
        { "blame", 1, 1, NEEDS_JSON, cmd_blame },
        { "metrics", 0, 1, 0, cmd_metrics },
};

static void help(void) {
        printf("Usage: %s [OPTION...] COMMAND [ARG...]\n\n"
               "Query and control devfreqd, the devfreq/cpufreq governor daemon.\n\n"
               "Commands:\n"
               "  status                              table of devices (the default)\n"
               "  show DEVICE                         every property of a device\n"
               "  set-governor DEVICE GOVERNOR        change the governor\n"
               "  set-frequency DEVICE FREQ           set the frequency (userspace governor)\n"
               "  set-tunable DEVICE NAME VALUE       set a governor tunable\n"
               "  opp DEVICE enable|disable FREQ      enable or disable an operating point\n"
               "  request DEVICE min|max|latency VALUE\n"
               "                                      add a QoS request and hold it until Ctrl-C\n"
               "  hold DEVICE min|max|latency VALUE -- COMMAND...\n"
               "                                      hold a QoS request while COMMAND runs\n"
               "  requests [DEVICE]                   list the live QoS requests\n"
               "  stats DEVICE                        time in state and transitions\n"
               "  monitor                             print changes as they happen\n"
               "  top                                 a live full-screen view of the devices\n"
               "  profile [NAME|none|show NAME]       the active profile and the list; switch; what\n"
               "                                      a profile sets\n"
               "  thermal                             the thermal rules, their zones and caps\n"
               "  blame DEVICE                        who decided the device's range, longest first\n"
               "  metrics [FILE]                      Prometheus text format, to FILE atomically\n"
               "  reload                              re-read the configuration\n\n"
               "Options:\n"
               "  --bus BUS           system (default), session, or a D-Bus address\n"
               "  --json              JSON output (status, show, requests, stats, profile, thermal,\n"
               "                      blame)\n"
               "  --reason TEXT       why a request is made (request, hold)\n"
               "  --timeout DURATION  the request ends by itself after DURATION (request)\n"
               "  -h, --help          show this help\n"
               "  --version           show the version\n\n"
               "Frequencies as 800MHz, 1.2GHz or Hz; latencies as 200us or 2ms. See devfreqctl(1).\n",
               program_invocation_short_name);
}

static const struct command *find_command(const char *name) {
        for (size_t i = 0; i < ELEMENTSOF(commands); i++)
                if (streq(commands[i].name, name))
                        return &commands[i];
        return NULL;
}

/* An option getopt does not know; `before` is optind before it looked. A '-' and a digit is no
 * option but a negative value (set-frequency gpu -1, request gpu latency -1us), named whole. The
 * digit is the first letter of its word: getopt stops at the first letter it does not know, and
 * -h, the only one it knows, shows the help and ends there. getopt leaves a word as it takes its
 * last letter, so the word is at optind - 1 when it is the digit alone and getopt moved (else that
 * is an option's value, as in --reason -1 -1us), at optind otherwise. EXIT_USAGE after saying why. */
static int unknown_option(char **argv, int before) {
        const char *word = argv[optind - 1];

        if (optopt >= '0' && optopt <= '9') {
                if (!(optind > before && word[0] == '-' && word[1] == optopt && word[2] == '\0'))
                        word = argv[optind];
                return negative_value(word);
        }
        /* A letter of a run (-zus) leaves optind on its word. */
        if (optopt > 0)
                return ctl_usage("unknown option -%c (see --help)", optopt);
        return ctl_usage("unknown option %s (see --help)", word);
}

/* The options before the command (up to `n`, where "--" stands): -1 to carry on, or the exit
 * status to stop with (help, version, usage errors). */
static int parse_options(int n, char **argv, struct ctl *c, bool *ret_has_timeout) {
        enum {
                ARG_BUS = 0x100,
                ARG_JSON,
                ARG_REASON,
                ARG_TIMEOUT,
                ARG_VERSION
        };
        static const struct option options[] = {
                { "bus", required_argument, NULL, ARG_BUS },
                { "json", no_argument, NULL, ARG_JSON },
                { "reason", required_argument, NULL, ARG_REASON },
                { "timeout", required_argument, NULL, ARG_TIMEOUT },
                { "help", no_argument, NULL, 'h' },
                { "version", no_argument, NULL, ARG_VERSION },
                {},
        };
        uint64_t usec;
        int opt;

        opterr = 0;
        for (int before = optind; (opt = getopt_long(n, argv, ":h", options, NULL)) >= 0; before = optind) {
                switch (opt) {
                case ARG_BUS:
                        if (!streq(optarg, "system") && !streq(optarg, "session") && !bus_address_valid(optarg))
                                return ctl_usage(
                                        "invalid bus '%s' (system, session or a D-Bus address such as "
                                        "unix:path=/run/dbus/system_bus_socket)",
                                        optarg);
                        c->bus_address = optarg;
                        break;
                case ARG_JSON:
                        c->json = true;
                        break;
                case ARG_REASON:
                        c->reason = optarg;
                        break;
                case ARG_TIMEOUT:
                        if (df_parse_duration(optarg, &usec) < 0 || usec == 0)
                                return ctl_usage(
                                        "invalid timeout '%s' (a duration such as 500ms or 30s)", optarg);
                        c->timeout_ms = usec / 1000 + (usec % 1000 != 0);
                        *ret_has_timeout = true;
                        break;
                case 'h':
                        help();
                        return EXIT_SUCCESS;
                case ARG_VERSION:
                        printf("devfreqctl %s\n", PACKAGE_VERSION);
                        return EXIT_SUCCESS;
                case ':':
                        return ctl_usage("option %s needs a value", argv[optind - 1]);
                default:
                        /* A long option given a value it does not take (--json=x) is known by
                         * its code. */
                        if (optopt >= ARG_BUS)
                                return ctl_usage("option %s takes no value", argv[optind - 1]);
                        return unknown_option(argv, before);
                }
        }
        return -1;
}

/* The command's arguments after the options; `n` is where "--" stands (argc without one): hold
 * runs what follows it, the other commands take it as operands. 0, or EXIT_USAGE. */
static int take_operands(int argc, char **argv, int n, const struct command *cmd, struct ctl *c) {
        c->args = argv + optind;
        c->n_args = n - optind;
        if (cmd->flags & NEEDS_COMMAND) {
                if (n == argc || n + 1 == argc)
                        return ctl_usage("%s wants -- and the command to run after its arguments", cmd->name);
                c->command = argv + n + 1;
        } else if (n < argc) {
                /* "--" before operands that look like options: take them as operands. */
                memmove(argv + n, argv + n + 1, (argc - n - 1) * sizeof(char *));
                argv[argc - 1] = NULL;
                c->n_args += argc - n - 1;
        }
        return 0;
}

/* The commands that take --json, from the table: "a, b and c". */
static void json_commands(char *buf, size_t size) {
        size_t n = 0, k = 0;

        for (size_t i = 0; i < ELEMENTSOF(commands); i++)
                n += !!(commands[i].flags & NEEDS_JSON);
        for (size_t i = 0; i < ELEMENTSOF(commands); i++) {
                size_t len = strlen(buf);
                if (!(commands[i].flags & NEEDS_JSON))
                        continue;
                k++;
                snprintf(
                        buf + len, size - len, "%s%s",
                        k == 1         ? "" :
                                k == n ? " and " :
                                         ", ",
                        commands[i].name);
        }
}

/* The number of arguments, and the options only some commands take. 0, or EXIT_USAGE. */
static int check_command_line(const struct command *cmd, const struct ctl *c, bool has_timeout) {
        if (c->n_args < cmd->min_args || c->n_args > cmd->max_args)
                return ctl_usage(
                        "%s takes %s%zu argument%s (see --help)", cmd->name,
                        cmd->min_args == cmd->max_args ? "" : "at most ", cmd->max_args,
                        cmd->max_args == 1 ? "" : "s");
        if (c->json && !(cmd->flags & NEEDS_JSON)) {
                char list[128] = "";
                json_commands(list, sizeof(list));
                return ctl_usage("--json is for %s, not %s", list, cmd->name);
        }
        if (c->reason && !(cmd->flags & NEEDS_REQUEST_OPTIONS))
                return ctl_usage("--reason is for request and hold, not %s", cmd->name);
        if (has_timeout && !streq(cmd->name, "request"))
                return ctl_usage("--timeout is for request, not %s", cmd->name);
        /* Strings on the bus are UTF-8 (metrics' FILE is a path and stays here). */
        for (size_t i = 0; !streq(cmd->name, "metrics") && i < c->n_args; i++)
                if (!df_utf8_valid(c->args[i], strlen(c->args[i])))
                        return ctl_usage("argument %zu of %s is not valid UTF-8", i + 1, cmd->name);
        if (c->reason && !df_utf8_valid(c->reason, strlen(c->reason)))
                return ctl_usage("--reason is not valid UTF-8");
        return 0;
}

/* Returns the command to run, or NULL with *ret_status set (help, version, usage errors). */
static const struct command *parse_args(int argc, char **argv, struct ctl *c, int *ret_status) {
        const struct command *cmd;
        bool has_timeout = false;
        int n = argc, r;

        /* "--" ends the options for good: what follows is hold's COMMAND, options and all. */
        for (int i = 1; i < argc; i++)
                if (streq(argv[i], "--")) {
                        n = i;
                        break;
                }

        r = parse_options(n, argv, c, &has_timeout);
        if (r >= 0) {
                *ret_status = r;
                return NULL;
        }
        *ret_status = EXIT_USAGE;
        if (optind == n && n + 1 < argc) {
                /* "--" before the command: the command is the first word after it. */
                memmove(argv + n, argv + n + 1, (size_t) (argc - n - 1) * sizeof(char *));
                argv[--argc] = NULL;
                for (n = optind; n < argc && !streq(argv[n], "--");)
                        n++;
        }
        cmd = find_command(optind < n ? argv[optind] : "status");
        if (!cmd) {
                ctl_usage("unknown command '%s' (see --help)", argv[optind]);
                return NULL;
        }
        if (optind < n)
                optind++;
        if (take_operands(argc, argv, n, cmd, c) != 0 || check_command_line(cmd, c, has_timeout) != 0 ||
            (cmd->parse && cmd->parse(c) != 0))
                return NULL;
        return cmd;
}

int main(int argc, char **argv) {
        struct ctl c = { .bus_address = "system" };
        const struct command *cmd;
        int status;

        cmd = parse_args(argc, argv, &c, &status);
        if (!cmd)
                return status;
        status = ctl_connect(&c);
        if (status != 0)
                return status;
        status = cmd->run(&c);
        sd_bus_flush_close_unref(c.bus);
        if (fflush(stdout) != 0 || ferror(stdout)) {
                fprintf(stderr, "%s: cannot write the output: %s\n", program_invocation_short_name,
                        strerror(errno));
                return status == EXIT_SUCCESS ? EXIT_DAEMON : status;
        }
        return status;
}
