/* SPDX-License-Identifier: GPL-2.0 */
/* power.h - the system's power profile, for --autopower. */
#ifndef __LAVD_POWER_H
#define __LAVD_POWER_H

/*
 * The power mode the system asks for (enum pol_power_mode), or -1 if it
 * cannot be told. Sources, first that answers: power-profiles-daemon's
 * saved state (ppd_state, normally /var/lib/power-profiles-daemon/state.ini:
 * it is written on every change, so no D-Bus client is needed), then CPU 0's
 * cpufreq energy_performance_preference, then its scaling_governor
 * (cpu_root, normally /sys/devices/system/cpu). *src names the source.
 */
int power_profile_mode(const char *ppd_state, const char *cpu_root, const char **src);

#endif /* __LAVD_POWER_H */
