/* SPDX-License-Identifier: GPL-2.0 */
/*
 * power.c - reading the system's power profile for --autopower.
 *
 * Upstream asks power-profiles-daemon over D-Bus. A static loader without a
 * D-Bus library reads the daemon's state file instead, which it rewrites on
 * every profile change; without the daemon, the cpufreq preference the
 * desktop's power settings usually write, then the governor.
 */
#include <stdio.h>
#include <string.h>
#include "power.h"
#include "topo.h"
#include "../policy/pol_power.h"

/* "Profile=power-saver" in the [State] group of the daemon's key file. */
static int ppd_mode(const char *path)
{
	char line[256];
	int in_state = 0, mode = -1;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *v;

		line[strcspn(line, "\r\n")] = 0;
		if (line[0] == '[') {
			in_state = !strcmp(line, "[State]");
			continue;
		}
		if (!in_state || strncmp(line, "Profile=", 8))
			continue;
		v = line + 8;
		if (!strcmp(v, "performance"))
			mode = POL_PM_PERFORMANCE;
		else if (!strcmp(v, "balanced"))
			mode = POL_PM_BALANCED;
		else if (!strcmp(v, "power-saver"))
			mode = POL_PM_POWERSAVE;
	}
	fclose(f);
	return mode;
}

static int epp_mode(const char *v)
{
	if (!strcmp(v, "performance"))
		return POL_PM_PERFORMANCE;
	if (!strcmp(v, "balance_performance") || !strcmp(v, "default"))
		return POL_PM_BALANCED;
	if (!strcmp(v, "balance_power") || !strcmp(v, "power"))
		return POL_PM_POWERSAVE;
	return -1;
}

static int governor_mode(const char *v)
{
	if (!strcmp(v, "performance"))
		return POL_PM_PERFORMANCE;
	if (!strcmp(v, "powersave"))
		/* intel_pstate's "powersave" is its normal dynamic governor, not a saving mode */
		return POL_PM_BALANCED;
	if (!strcmp(v, "schedutil") || !strcmp(v, "ondemand") || !strcmp(v, "conservative"))
		return POL_PM_BALANCED;
	return -1;
}

int power_profile_mode(const char *ppd_state, const char *cpu_root, const char **src)
{
	char path[512], v[64];
	int m;

	if (ppd_state && (m = ppd_mode(ppd_state)) >= 0) {
		*src = "power-profiles-daemon";
		return m;
	}
	snprintf(path, sizeof(path), "%s/cpu0/cpufreq/energy_performance_preference", cpu_root);
	if (topo_read_line(path, v, sizeof(v)) > 0 && (m = epp_mode(v)) >= 0) {
		*src = "energy_performance_preference";
		return m;
	}
	snprintf(path, sizeof(path), "%s/cpu0/cpufreq/scaling_governor", cpu_root);
	if (topo_read_line(path, v, sizeof(v)) > 0 && (m = governor_mode(v)) >= 0) {
		*src = "scaling_governor";
		return m;
	}
	*src = "none";
	return -1;
}
