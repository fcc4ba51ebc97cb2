// SPDX-License-Identifier: GPL-2.0
/*
 * devfreq_test: two devfreq devices for devfreqd's kernel tier.
 *
 * Two platform devices, "dftest-gpu" and "dftest-dmc", each with an OPP table (with voltages) and a
 * devfreq device on the kernel's simple_ondemand governor. get_dev_status() returns the next
 * sample of a script written to debugfs (one sample per call; with the script used up it fails,
 * and the governor decides nothing). target() rounds through devfreq_recommended_opp() as real
 * drivers do and records every frequency chosen, with the number of samples consumed so far.
 *
 * /sys/kernel/debug/devfreq_test/NAME/
 *   script   write: "busy total" lines (or "busy,total"), appended; read: samples left
 *   targets  read: "SAMPLE FREQ" per target() call; write anything: forget them
 *   consumed read: samples consumed since load
 * A cpufreq driver "devfreq_test" with a table of 800 MHz to 2 GHz and one policy per CPU
 * (with cpufreq=1, the default; boot with intel_pstate=disable so that it may register).
 *
 * /sys/kernel/debug/devfreq_test/control
 *   write "remove gpu", "add gpu" (or dmc): the device unplugged and plugged again
 *
 * A thermal zone of type "dftest-thermal", no trip points, whose temperature is what was last written
 * (millidegrees Celsius) to /sys/kernel/debug/devfreq_test/temp (45000 at load).
 *
 * The GPU has a devfreq cooling device (devfreq_cooling_register(), as GPU drivers do), bound to
 * no zone: a write of its cur_state in /sys/class/thermal caps the GPU the way a thermal governor
 * would, through the kernel's own max-frequency request, which min_freq and max_freq show.
 */

#include <linux/cpufreq.h>
#include <linux/debugfs.h>
#include <linux/devfreq.h>
#include <linux/devfreq_cooling.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/platform_device.h>
#include <linux/pm_opp.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/thermal.h>
#include <linux/uaccess.h>

#define MAX_SAMPLES 8192
#define MAX_RECORDS 8192

static unsigned int polling_ms = 20;
module_param(polling_ms, uint, 0444);
MODULE_PARM_DESC(polling_ms, "polling interval of both devices");
static unsigned int gpu_upthreshold = 90, gpu_downdifferential = 5;
static unsigned int dmc_upthreshold = 70, dmc_downdifferential = 15;
module_param(gpu_upthreshold, uint, 0444);
module_param(gpu_downdifferential, uint, 0444);
module_param(dmc_upthreshold, uint, 0444);
module_param(dmc_downdifferential, uint, 0444);

struct sample {
	unsigned long busy, total;
};

struct record {
	unsigned long sample;
	unsigned long freq;
};

struct tdev {
	const char *name;
	const unsigned long *freqs, *uvolts;
	unsigned int n_opps;
	unsigned int *upthreshold, *downdifferential;
	bool cooling;

	struct platform_device *pdev;
	struct devfreq *df;
	struct thermal_cooling_device *cdev;
	struct devfreq_dev_profile profile;
	struct devfreq_simple_ondemand_data gov;
	struct dentry *dir;

	struct mutex lock;
	struct sample *samples;
	unsigned int n_samples, head;
	char carry[64];
	size_t carry_len;
	struct record *records;
	unsigned int n_records;
	unsigned long consumed;
	unsigned long cur;
};

static const unsigned long gpu_freqs[] = { 200000000, 300000000, 400000000, 600000000, 800000000 };
static const unsigned long gpu_uvolts[] = { 800000, 850000, 900000, 1000000, 1100000 };
static const unsigned long dmc_freqs[] = { 166000000, 333000000, 533000000, 800000000 };
static const unsigned long dmc_uvolts[] = { 750000, 825000, 900000, 1050000 };

static struct tdev tdevs[] = {
	{ .name = "dftest-gpu", .freqs = gpu_freqs, .uvolts = gpu_uvolts, .n_opps = ARRAY_SIZE(gpu_freqs),
	  .upthreshold = &gpu_upthreshold, .downdifferential = &gpu_downdifferential, .cooling = true },
	{ .name = "dftest-dmc", .freqs = dmc_freqs, .uvolts = dmc_uvolts, .n_opps = ARRAY_SIZE(dmc_freqs),
	  .upthreshold = &dmc_upthreshold, .downdifferential = &dmc_downdifferential },
};

static struct dentry *top_dir;

static struct tdev *tdev_of(struct device *dev)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(tdevs); i++)
		if (tdevs[i].pdev && &tdevs[i].pdev->dev == dev)
			return &tdevs[i];
	return NULL;
}

static int td_target(struct device *dev, unsigned long *freq, u32 flags)
{
	struct tdev *td = tdev_of(dev);
	struct dev_pm_opp *opp;

	if (!td)
		return -ENODEV;
	/* As drivers do; it leaves the chosen point's frequency in *freq. */
	opp = devfreq_recommended_opp(dev, freq, flags);
	if (IS_ERR(opp))
		return PTR_ERR(opp);
	dev_pm_opp_put(opp);

	mutex_lock(&td->lock);
	td->cur = *freq;
	if (td->n_records < MAX_RECORDS) {
		td->records[td->n_records].sample = td->consumed;
		td->records[td->n_records].freq = *freq;
		td->n_records++;
	}
	mutex_unlock(&td->lock);
	return 0;
}

static int td_get_dev_status(struct device *dev, struct devfreq_dev_status *st)
{
	struct tdev *td = tdev_of(dev);
	int r = 0;

	if (!td)
		return -ENODEV;
	mutex_lock(&td->lock);
	if (td->head >= td->n_samples) {
		r = -EAGAIN;
	} else {
		st->busy_time = td->samples[td->head].busy;
		st->total_time = td->samples[td->head].total;
		st->current_frequency = td->cur;
		td->head++;
		td->consumed++;
	}
	mutex_unlock(&td->lock);
	return r;
}

static int td_get_cur_freq(struct device *dev, unsigned long *freq)
{
	struct tdev *td = tdev_of(dev);

	if (!td)
		return -ENODEV;
	mutex_lock(&td->lock);
	*freq = td->cur;
	mutex_unlock(&td->lock);
	return 0;
}

/* --- debugfs -------------------------------------------------------------------------------- */

/* One line of the script: "busy total" or "busy,total". Called with td->lock held. */
static int add_line(struct tdev *td, char *line)
{
	unsigned long busy, total;
	char *sep;

	line = strim(line);
	if (!*line)
		return 0;
	sep = strpbrk(line, ", ");
	if (!sep)
		return -EINVAL;
	*sep++ = '\0';
	if (kstrtoul(line, 10, &busy) || kstrtoul(strim(sep), 10, &total))
		return -EINVAL;
	if (td->head == td->n_samples)
		td->head = td->n_samples = 0;
	if (td->n_samples >= MAX_SAMPLES)
		return -ENOSPC;
	td->samples[td->n_samples].busy = busy;
	td->samples[td->n_samples].total = total;
	td->n_samples++;
	return 0;
}

static ssize_t script_write(struct file *file, const char __user *ubuf, size_t len, loff_t *ppos)
{
	struct tdev *td = file_inode(file)->i_private;
	char *buf, *p, *nl;
	int r = 0;

	if (len > 65536)
		return -E2BIG;
	buf = kmalloc(len + sizeof(td->carry) + 1, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	mutex_lock(&td->lock);
	memcpy(buf, td->carry, td->carry_len);
	if (copy_from_user(buf + td->carry_len, ubuf, len)) {
		r = -EFAULT;
		goto out;
	}
	buf[td->carry_len + len] = '\0';
	td->carry_len = 0;
	for (p = buf; (nl = strchr(p, '\n')); p = nl + 1) {
		*nl = '\0';
		r = add_line(td, p);
		if (r < 0)
			goto out;
	}
	if (strlen(p) >= sizeof(td->carry)) {
		r = -EINVAL;
		goto out;
	}
	td->carry_len = strlen(p);
	memcpy(td->carry, p, td->carry_len);
out:
	mutex_unlock(&td->lock);
	kfree(buf);
	return r < 0 ? r : (ssize_t)len;
}

static int script_show(struct seq_file *s, void *unused)
{
	struct tdev *td = s->private;

	mutex_lock(&td->lock);
	seq_printf(s, "%u\n", td->n_samples - td->head);
	mutex_unlock(&td->lock);
	return 0;
}

static int script_open(struct inode *inode, struct file *file)
{
	return single_open(file, script_show, inode->i_private);
}

static const struct file_operations script_fops = {
	.owner = THIS_MODULE,
	.open = script_open,
	.read = seq_read,
	.write = script_write,
	.llseek = seq_lseek,
	.release = single_release,
};

static int targets_show(struct seq_file *s, void *unused)
{
	struct tdev *td = s->private;
	unsigned int i;

	mutex_lock(&td->lock);
	for (i = 0; i < td->n_records; i++)
		seq_printf(s, "%lu %lu\n", td->records[i].sample, td->records[i].freq);
	mutex_unlock(&td->lock);
	return 0;
}

static int targets_open(struct inode *inode, struct file *file)
{
	return single_open_size(file, targets_show, inode->i_private, MAX_RECORDS * 32);
}

static ssize_t targets_write(struct file *file, const char __user *ubuf, size_t len, loff_t *ppos)
{
	struct tdev *td = file_inode(file)->i_private;

	mutex_lock(&td->lock);
	td->n_records = 0;
	mutex_unlock(&td->lock);
	return len;
}

static const struct file_operations targets_fops = {
	.owner = THIS_MODULE,
	.open = targets_open,
	.read = seq_read,
	.write = targets_write,
	.llseek = seq_lseek,
	.release = single_release,
};

static int consumed_show(struct seq_file *s, void *unused)
{
	struct tdev *td = s->private;

	mutex_lock(&td->lock);
	seq_printf(s, "%lu\n", td->consumed);
	mutex_unlock(&td->lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(consumed);

/* --- devices ---------------------------------------------------------------------------------- */

static DEFINE_MUTEX(control_lock);

/* The platform device, its OPP table and its devfreq device, as a driver's probe makes them. */
static int tdev_register(struct tdev *td)
{
	struct platform_device *pdev;
	unsigned int i;
	int r;

	pdev = platform_device_register_simple(td->name, -1, NULL, 0);
	if (IS_ERR(pdev))
		return PTR_ERR(pdev);
	for (i = 0; i < td->n_opps; i++) {
		r = dev_pm_opp_add(&pdev->dev, td->freqs[i], td->uvolts[i]);
		if (r < 0)
			goto fail;
	}
	mutex_lock(&td->lock);
	td->pdev = pdev;
	td->cur = td->freqs[td->n_opps - 1];
	mutex_unlock(&td->lock);
	td->gov.upthreshold = *td->upthreshold;
	td->gov.downdifferential = *td->downdifferential;
	memset(&td->profile, 0, sizeof(td->profile));
	td->profile.initial_freq = td->freqs[td->n_opps - 1];
	td->profile.polling_ms = polling_ms;
	td->profile.timer = DEVFREQ_TIMER_DELAYED;
	td->profile.target = td_target;
	td->profile.get_dev_status = td_get_dev_status;
	td->profile.get_cur_freq = td_get_cur_freq;
	td->df = devfreq_add_device(&pdev->dev, &td->profile, DEVFREQ_GOV_SIMPLE_ONDEMAND, &td->gov);
	if (!IS_ERR(td->df)) {
		if (td->cooling) {
			td->cdev = devfreq_cooling_register(td->df);
			if (IS_ERR(td->cdev)) {
				pr_warn("devfreq_test: no cooling device for %s: %ld\n", td->name, PTR_ERR(td->cdev));
				td->cdev = NULL;
			}
		}
		return 0;
	}
	r = PTR_ERR(td->df);
	td->df = NULL;
fail:
	mutex_lock(&td->lock);
	td->pdev = NULL;
	mutex_unlock(&td->lock);
	dev_pm_opp_remove_all_dynamic(&pdev->dev);
	platform_device_unregister(pdev);
	return r;
}

static void tdev_unregister(struct tdev *td)
{
	struct platform_device *pdev = td->pdev;

	if (!pdev)
		return;
	if (td->cdev)
		devfreq_cooling_unregister(td->cdev);
	td->cdev = NULL;
	if (td->df)
		devfreq_remove_device(td->df);
	td->df = NULL;
	mutex_lock(&td->lock);
	td->pdev = NULL;
	mutex_unlock(&td->lock);
	dev_pm_opp_remove_all_dynamic(&pdev->dev);
	platform_device_unregister(pdev);
}

/* control: "remove NAME" or "add NAME" (NAME: gpu or dmc), a device unplugged and plugged again. */
static ssize_t control_write(struct file *file, const char __user *ubuf, size_t len, loff_t *ppos)
{
	char buf[32], *name;
	struct tdev *td = NULL;
	unsigned int i;
	int r = 0;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	name = strim(buf);
	if (strncmp(name, "remove ", 7) && strncmp(name, "add ", 4))
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(tdevs); i++)
		if (!strcmp(strchr(name, ' ') + 1, tdevs[i].name + strlen("dftest-")))
			td = &tdevs[i];
	if (!td)
		return -ENODEV;
	mutex_lock(&control_lock);
	if (name[0] == 'r' && !td->pdev)
		r = -ENODEV;
	else if (name[0] == 'r')
		tdev_unregister(td);
	else
		r = td->pdev ? -EEXIST : tdev_register(td);
	mutex_unlock(&control_lock);
	return r < 0 ? r : (ssize_t)len;
}

static const struct file_operations control_fops = {
	.owner = THIS_MODULE,
	.write = control_write,
};

/* --- the cpufreq driver ------------------------------------------------------------------------ */

static bool cpufreq = true;
module_param(cpufreq, bool, 0444);
MODULE_PARM_DESC(cpufreq, "register the cpufreq driver");

static struct cpufreq_frequency_table cpu_table[] = {
	{ .frequency = 800000 },
	{ .frequency = 1200000 },
	{ .frequency = 1600000 },
	{ .frequency = 2000000 },
	{ .frequency = CPUFREQ_TABLE_END },
};

static DEFINE_PER_CPU(unsigned int, cpu_cur);
static bool cpufreq_registered;

static int tcpu_init(struct cpufreq_policy *policy)
{
	per_cpu(cpu_cur, policy->cpu) = cpu_table[ARRAY_SIZE(cpu_table) - 2].frequency;
	policy->cpuinfo.transition_latency = 100000; /* ns */
	policy->freq_table = cpu_table;
	return 0;
}

static int tcpu_target_index(struct cpufreq_policy *policy, unsigned int index)
{
	per_cpu(cpu_cur, policy->cpu) = cpu_table[index].frequency;
	return 0;
}

static unsigned int tcpu_get(unsigned int cpu)
{
	return per_cpu(cpu_cur, cpu);
}

static struct cpufreq_driver tcpu_driver = {
	.name = "devfreq_test",
	.init = tcpu_init,
	.verify = cpufreq_generic_frequency_table_verify,
	.target_index = tcpu_target_index,
	.get = tcpu_get,
	.attr = cpufreq_generic_attr,
};

static void tdevs_free(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(tdevs); i++) {
		tdev_unregister(&tdevs[i]);
		kfree(tdevs[i].samples);
		kfree(tdevs[i].records);
	}
}

/* --- the thermal zone ---------------------------------------------------------------------------- */

static struct thermal_zone_device *tzone;
static u32 tzone_temp = 45000;

static int tzone_get_temp(struct thermal_zone_device *tz, int *temp)
{
	*temp = (int)READ_ONCE(tzone_temp);
	return 0;
}

static struct thermal_zone_device_ops tzone_ops = {
	.get_temp = tzone_get_temp,
};

static void tzone_register(void)
{
	tzone = thermal_zone_device_register("dftest-thermal", 0, 0, NULL, &tzone_ops, NULL, 0, 0);
	if (IS_ERR(tzone)) {
		pr_warn("devfreq_test: no thermal zone: %ld\n", PTR_ERR(tzone));
		tzone = NULL;
		return;
	}
	if (thermal_zone_device_enable(tzone) < 0)
		pr_warn("devfreq_test: the thermal zone cannot be enabled\n");
	debugfs_create_u32("temp", 0600, top_dir, &tzone_temp);
}

static int __init devfreq_test_init(void)
{
	struct tdev *td;
	unsigned int i;
	int r;

	top_dir = debugfs_create_dir("devfreq_test", NULL);
	for (i = 0; i < ARRAY_SIZE(tdevs); i++) {
		td = &tdevs[i];
		mutex_init(&td->lock);
		td->samples = kcalloc(MAX_SAMPLES, sizeof(*td->samples), GFP_KERNEL);
		td->records = kcalloc(MAX_RECORDS, sizeof(*td->records), GFP_KERNEL);
		r = td->samples && td->records ? tdev_register(td) : -ENOMEM;
		if (r < 0) {
			pr_err("devfreq_test: %s: %d\n", td->name, r);
			debugfs_remove_recursive(top_dir);
			tdevs_free();
			return r;
		}
		td->dir = debugfs_create_dir(td->name, top_dir);
		debugfs_create_file("script", 0600, td->dir, td, &script_fops);
		debugfs_create_file("targets", 0600, td->dir, td, &targets_fops);
		debugfs_create_file("consumed", 0400, td->dir, td, &consumed_fops);
	}
	debugfs_create_file("control", 0200, top_dir, NULL, &control_fops);
	tzone_register();
	if (cpufreq) {
		r = cpufreq_register_driver(&tcpu_driver);
		if (r < 0)
			pr_warn("devfreq_test: no cpufreq driver: %d\n", r);
		cpufreq_registered = r == 0;
	}
	return 0;
}

static void __exit devfreq_test_exit(void)
{
	if (tzone)
		thermal_zone_device_unregister(tzone);
	if (cpufreq_registered)
		cpufreq_unregister_driver(&tcpu_driver);
	debugfs_remove_recursive(top_dir);
	mutex_lock(&control_lock);
	tdevs_free();
	mutex_unlock(&control_lock);
}

module_init(devfreq_test_init);
module_exit(devfreq_test_exit);
MODULE_DESCRIPTION("devfreq test devices for devfreqd's kernel tier");
MODULE_LICENSE("GPL");
