/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The names of devfreqd's bus API (org.devfreqd.Devfreq1(5)), once for the daemon and its clients. */
#pragma once

#define BUS_NAME "org.devfreqd.Devfreq1"
#define OBJECT_ROOT "/org/devfreqd/Devfreq1"
#define DEVICE_PREFIX "/org/devfreqd/Devfreq1/device"
#define REQUEST_PREFIX "/org/devfreqd/Devfreq1/request"
#define IFACE_MANAGER "org.devfreqd.Devfreq1.Manager"
#define IFACE_DEVICE "org.devfreqd.Devfreq1.Device"
#define IFACE_REQUEST "org.devfreqd.Devfreq1.Request"
#define IFACE_OBJECT_MANAGER "org.freedesktop.DBus.ObjectManager"
#define IFACE_PROPERTIES "org.freedesktop.DBus.Properties"

#define ERROR_NO_SUCH_DEVICE "org.devfreqd.Devfreq1.Error.NoSuchDevice"
#define ERROR_NO_SUCH_REQUEST "org.devfreqd.Devfreq1.Error.NoSuchRequest"
#define ERROR_NO_SUCH_OPERATING_POINT "org.devfreqd.Devfreq1.Error.NoSuchOperatingPoint"
#define ERROR_INVALID_GOVERNOR "org.devfreqd.Devfreq1.Error.InvalidGovernor"
#define ERROR_WRONG_GOVERNOR "org.devfreqd.Devfreq1.Error.WrongGovernor"
#define ERROR_INVALID_CONFIGURATION "org.devfreqd.Devfreq1.Error.InvalidConfiguration"
#define ERROR_TOO_MANY_REQUESTS "org.devfreqd.Devfreq1.Error.TooManyRequests"
#define ERROR_DEVICE_FAILED "org.devfreqd.Devfreq1.Error.DeviceFailed"
#define ERROR_NO_SUCH_PROFILE "org.devfreqd.Devfreq1.Error.NoSuchProfile"
