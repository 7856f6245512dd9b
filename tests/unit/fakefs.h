/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fakefs.h - fake sysfs/debugfs trees for the loader's unit tests: a fresh
 * temporary directory per test and files written below it, parent
 * directories made as needed. Include once per test program.
 */
#ifndef __LAVD_FAKEFS_H
#define __LAVD_FAKEFS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static char root[256];

/* Write root/rel with content, making the directories on the way. */
static void put(const char *rel, const char *content)
{
	char path[600], dir[600], *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	snprintf(dir, sizeof(dir), "%s", path);
	for (slash = dir + strlen(root) + 1; (slash = strchr(slash, '/')); slash++) {
		*slash = 0;
		mkdir(dir, 0755);
		*slash = '/';
	}
	f = fopen(path, "w");
	if (f) {
		fputs(content, f);
		fclose(f);
	}
}

/* Remove the previous tree, if any, and make an empty one named after tag. */
static __attribute__((unused)) void fresh_root_named(const char *tag)
{
	char cmd[300];

	if (root[0]) {
		snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
		if (system(cmd)) {}
	}
	snprintf(root, sizeof(root), "/tmp/lavd-%s-XXXXXX", tag);
	if (!mkdtemp(root))
		abort();
}

#endif /* __LAVD_FAKEFS_H */
