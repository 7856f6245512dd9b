/* SPDX-License-Identifier: GPL-2.0 */
/* --autopower's profile reading against fake files (src/loader/power.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "harness.h"
#include "loader/power.h"
#include "policy/pol_power.h"

#include "fakefs.h"

static void fresh(void)
{
	fresh_root_named("power");
}

static int mode(const char **src)
{
	char ppd[300];

	snprintf(ppd, sizeof(ppd), "%s/ppd/state.ini", root);
	return power_profile_mode(ppd, root, src);
}

TEST(ppd_state_first)
{
	const char *src;

	fresh();
	put("ppd/state.ini", "[Other]\nProfile=performance\n[State]\nCpuDriver=intel_pstate\nProfile=power-saver\n");
	put("cpu0/cpufreq/energy_performance_preference", "performance\n");
	CHECK_EQ(mode(&src), POL_PM_POWERSAVE);
	CHECK(!strcmp(src, "power-profiles-daemon"));
	put("ppd/state.ini", "[State]\nProfile=balanced\n");
	CHECK_EQ(mode(&src), POL_PM_BALANCED);
	put("ppd/state.ini", "[State]\r\nProfile=performance\r\n");
	CHECK_EQ(mode(&src), POL_PM_PERFORMANCE);
}

TEST(epp_then_governor)
{
	const char *src;

	fresh();
	put("ppd/state.ini", "[State]\nProfile=turbo-nonsense\n");	/* unknown: next source */
	put("cpu0/cpufreq/energy_performance_preference", "balance_power\n");
	CHECK_EQ(mode(&src), POL_PM_POWERSAVE);
	CHECK(!strcmp(src, "energy_performance_preference"));
	put("cpu0/cpufreq/energy_performance_preference", "weird\n");
	put("cpu0/cpufreq/scaling_governor", "performance\n");
	CHECK_EQ(mode(&src), POL_PM_PERFORMANCE);
	CHECK(!strcmp(src, "scaling_governor"));
	put("cpu0/cpufreq/scaling_governor", "schedutil\n");
	CHECK_EQ(mode(&src), POL_PM_BALANCED);
}

TEST(nothing_to_follow)
{
	const char *src;

	fresh();
	CHECK_EQ(mode(&src), -1);	/* a VM: no cpufreq, no daemon */
	CHECK(!strcmp(src, "none"));
	put("cpu0/cpufreq/scaling_governor", "userspace\n");
	CHECK_EQ(mode(&src), -1);
	put("cpu0/cpufreq/scaling_governor", "");
	CHECK_EQ(mode(&src), -1);
}

HARNESS_MAIN("power")
