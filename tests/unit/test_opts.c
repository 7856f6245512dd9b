/* SPDX-License-Identifier: GPL-2.0 */
/* Command-line parsing (src/loader/opts.c): defaults, bounds, bad input. */
#include <stdio.h>
#include "harness.h"
#include "loader/opts.h"

static int parse(struct opts *o, const char *a1, const char *a2, const char *a3)
{
	char *argv[5] = { "scx_lavd", (char *)a1, (char *)a2, (char *)a3, NULL };
	int argc = 1 + !!a1 + !!a2 + !!a3;

	return opts_parse(o, argc, argv);
}

TEST(defaults_match_upstream)
{
	struct opts o;

	CHECK_EQ(parse(&o, NULL, NULL, NULL), 0);
	CHECK_EQ(o.slice_max_us, 5000);
	CHECK_EQ(o.slice_min_us, 500);
	CHECK_EQ(o.preempt_shift, 6);
	CHECK(o.stats_secs == 0);
}

TEST(values)
{
	struct opts o;

	CHECK_EQ(parse(&o, "--slice-max-us", "3000", "--no-slice-boost"), 0);
	CHECK_EQ(o.slice_max_us, 3000);
	CHECK(o.no_slice_boost);
	CHECK_EQ(parse(&o, "--slice-max-us=8000", "--preempt-shift=10", NULL), 0);
	CHECK_EQ(o.slice_max_us, 8000);
	CHECK_EQ(o.preempt_shift, 10);
	CHECK_EQ(parse(&o, "--stats", "0.5", NULL), 0);
	CHECK(o.stats_secs == 0.5);
	CHECK_EQ(parse(&o, "--slice-min-us", "100", NULL), 0);
	CHECK_EQ(o.power, OPTS_PM_AUTOPILOT);	/* the default */
	CHECK(!o.power_given);
}

TEST(power_modes)
{
	struct opts o;

	CHECK_EQ(parse(&o, "--performance", NULL, NULL), 0);
	CHECK_EQ(o.power, OPTS_PM_PERFORMANCE);
	CHECK_EQ(parse(&o, "--powersave", "--no-freq-scaling", NULL), 0);
	CHECK_EQ(o.power, OPTS_PM_POWERSAVE);
	CHECK(o.no_freq_scaling);
	CHECK_EQ(parse(&o, "--balanced", "--no-use-em", NULL), 0);
	CHECK_EQ(o.power, OPTS_PM_BALANCED);
	CHECK(o.no_use_em);
	CHECK_EQ(parse(&o, "--autopower", NULL, NULL), 0);
	CHECK_EQ(o.power, OPTS_PM_AUTOPOWER);
	CHECK_EQ(parse(&o, "--autopilot", "--no-core-compaction", NULL), 0);
	CHECK(o.no_core_compaction);
	CHECK_EQ(parse(&o, "--performance", "--performance", NULL), 0);	/* repeated: fine */
	CHECK_EQ(parse(&o, "--cpu-pref-order", "0-3,8", NULL), 0);
	CHECK(o.no_use_em);
	/* conflicts */
	CHECK_EQ(parse(&o, "--performance", "--powersave", NULL), -1);
	CHECK_EQ(parse(&o, "--autopilot", "--autopower", NULL), -1);
	CHECK_EQ(parse(&o, "--powersave", "--no-core-compaction", NULL), -1);
	CHECK_EQ(parse(&o, "--no-core-compaction", "--balanced", NULL), -1);
	CHECK_EQ(parse(&o, "--cpu-pref-order", "x", NULL), -1);
	CHECK_EQ(parse(&o, "--cpu-pref-order", "", NULL), -1);
}

TEST(bad_values)
{
	struct opts o;

	CHECK_EQ(parse(&o, "--slice-max-us", "abc", NULL), -1);
	CHECK_EQ(parse(&o, "--slice-max-us", "-5", NULL), -1);
	CHECK_EQ(parse(&o, "--slice-max-us", "0", NULL), -1);
	CHECK_EQ(parse(&o, "--slice-max-us", "99999999999999999999", NULL), -1);
	CHECK_EQ(parse(&o, "--slice-min-us", "6000", NULL), -1); /* min > max */
	CHECK_EQ(parse(&o, "--preempt-shift", "11", NULL), -1);
	CHECK_EQ(parse(&o, "--stats", "0", NULL), -1);
	CHECK_EQ(parse(&o, "--stats", "x", NULL), -1);
	CHECK_EQ(parse(&o, "--bogus", NULL, NULL), -1);
	CHECK_EQ(parse(&o, "extra", NULL, NULL), -1);
	CHECK_EQ(parse(&o, "--slice-max-us", NULL, NULL), -1);
	CHECK_EQ(parse(&o, "--mig-delta-pct", "300", NULL), -1);
	CHECK_EQ(parse(&o, "--mig-delta-pct", "101", NULL), -1);	/* upstream's range: 0..100 */
	CHECK_EQ(parse(&o, "--monitor", "0", NULL), -1);
	CHECK_EQ(parse(&o, "--monitor", "1s", NULL), -1);
}

TEST(pinned_slice)
{
	struct opts o;

	CHECK_EQ(parse(&o, "--stats", "1", NULL), 0);
	CHECK_EQ(o.pinned_slice_us, 5000);	/* upstream's default */
	CHECK_EQ(parse(&o, "--pinned-slice-us", "0", NULL), 0);
	CHECK_EQ(o.pinned_slice_us, 0);
	CHECK_EQ(parse(&o, "--pinned-slice-us", "1000", NULL), 0);
	CHECK_EQ(o.pinned_slice_us, 1000);
	CHECK_EQ(parse(&o, "--pinned-slice-us", "499", NULL), -1);	/* below --slice-min-us */
	CHECK_EQ(parse(&o, "--pinned-slice-us", "5001", NULL), -1);	/* above --slice-max-us */
}

TEST(monitor)
{
	struct opts o;

	CHECK_EQ(parse(&o, "--monitor", "0.5", NULL), 0);
	CHECK(o.monitor_secs == 0.5);
	CHECK(o.stats_secs == 0);
	CHECK_EQ(parse(&o, "--stats", "2", NULL), 0);
	CHECK(o.monitor_secs == 0);
}

TEST(enable_cpu_bw)
{
	struct opts o;

	CHECK_EQ(parse(&o, NULL, NULL, NULL), 0);
	CHECK(!o.enable_cpu_bw);
	CHECK_EQ(parse(&o, "--enable-cpu-bw", NULL, NULL), 0);
	CHECK(o.enable_cpu_bw);
	CHECK_EQ(parse(&o, "--enable-cpu-bw=1", NULL, NULL), -1);
}

TEST(mig_delta_pct)
{
	struct opts o;

	CHECK_EQ(parse(&o, NULL, NULL, NULL), 0);
	CHECK_EQ(o.mig_delta_pct, 0);
	CHECK_EQ(parse(&o, "--mig-delta-pct", "25", NULL), 0);
	CHECK_EQ(o.mig_delta_pct, 25);
	CHECK_EQ(parse(&o, "--mig-delta-pct=100", NULL, NULL), 0);
	CHECK_EQ(o.mig_delta_pct, 100);
}

TEST(log_level)
{
	struct opts o;

	CHECK_EQ(parse(&o, NULL, NULL, NULL), 0);
	CHECK_EQ(o.log_level, OPTS_LOG_INFO);
	CHECK_EQ(parse(&o, "--log-level", "debug", NULL), 0);
	CHECK_EQ(o.log_level, OPTS_LOG_DEBUG);
	CHECK_EQ(parse(&o, "--log-level=TRACE", NULL, NULL), 0);
	CHECK_EQ(o.log_level, OPTS_LOG_TRACE);
	CHECK_EQ(parse(&o, "--log-level", "error", NULL), 0);
	CHECK_EQ(o.log_level, OPTS_LOG_ERROR);
	CHECK_EQ(parse(&o, "--log-level", "verbose", NULL), -1);
	CHECK_EQ(parse(&o, "--log-level", "", NULL), -1);
	CHECK_EQ(parse(&o, "--log-level", "info,foo=debug", NULL), -1);
}

TEST(virt_llc)
{
	struct opts o;

	CHECK_EQ(parse(&o, NULL, NULL, NULL), 0);
	CHECK_EQ(o.virt_llc_min, 0);	/* off */
	CHECK_EQ(parse(&o, "--virt-llc", NULL, NULL), 0);
	CHECK_EQ(o.virt_llc_min, 2);	/* upstream's default range */
	CHECK_EQ(o.virt_llc_max, 8);
	CHECK_EQ(parse(&o, "--virt-llc=4-4", NULL, NULL), 0);
	CHECK_EQ(o.virt_llc_min, 4);
	CHECK_EQ(o.virt_llc_max, 4);
	CHECK_EQ(parse(&o, "--virt-llc=1-1024", NULL, NULL), 0);
	CHECK_EQ(o.virt_llc_max, 1024);
	/* a bare --virt-llc takes no separate value: "3-6" is then a stray argument */
	CHECK_EQ(parse(&o, "--virt-llc", "3-6", NULL), -1);
	CHECK_EQ(parse(&o, "--virt-llc=0-2", NULL, NULL), -1);
	CHECK_EQ(parse(&o, "--virt-llc=3-2", NULL, NULL), -1);
	CHECK_EQ(parse(&o, "--virt-llc=2", NULL, NULL), -1);
	CHECK_EQ(parse(&o, "--virt-llc=2-", NULL, NULL), -1);
	CHECK_EQ(parse(&o, "--virt-llc=-2", NULL, NULL), -1);
	CHECK_EQ(parse(&o, "--virt-llc=2-8x", NULL, NULL), -1);
	CHECK_EQ(parse(&o, "--virt-llc=2-1025", NULL, NULL), -1);
	CHECK_EQ(parse(&o, "--virt-llc=2-99999999999999999999", NULL, NULL), -1);
	CHECK_EQ(parse(&o, "--virt-llc=", NULL, NULL), -1);
}

TEST(help_and_version_exit_early)
{
	struct opts o;

	CHECK_EQ(parse(&o, "--version", NULL, NULL), 1);
	CHECK_EQ(parse(&o, "-h", NULL, NULL), 1);
}

HARNESS_MAIN("opts")
