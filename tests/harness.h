/* SPDX-License-Identifier: GPL-2.0 */
/*
 * harness.h - a minimal test harness for C tests.
 *
 * TEST(name) { ... CHECK(expr); CHECK_EQ(a, b); } registers a test; main()
 * from harness_main() runs them all and prints one line per test and a
 * closing "N passed, N failed". A failed CHECK ends that test only.
 */
#ifndef __LAVD_HARNESS_H
#define __LAVD_HARNESS_H

#include <stdio.h>
#include <string.h>

struct test_case {
	const char *name;
	void (*fn)(int *failed);
};

#define MAX_TESTS 512
extern struct test_case test_cases[MAX_TESTS];
extern int nr_test_cases;

#define TEST(nm)								\
	static void test_##nm(int *failed);					\
	__attribute__((constructor)) static void reg_##nm(void)		\
	{									\
		if (nr_test_cases < MAX_TESTS)					\
			test_cases[nr_test_cases++] =				\
				(struct test_case){ #nm, test_##nm };		\
	}									\
	static void test_##nm(int *failed)

#define CHECK(expr)								\
	do {									\
		if (!(expr)) {							\
			printf("  %s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #expr); \
			*failed = 1;						\
			return;							\
		}								\
	} while (0)

#define CHECK_EQ(a, b)								\
	do {									\
		unsigned long long __a = (unsigned long long)(a);		\
		unsigned long long __b = (unsigned long long)(b);		\
		if (__a != __b) {						\
			printf("  %s:%d: %s == %llu, expected %s == %llu\n",	\
			       __FILE__, __LINE__, #a, __a, #b, __b);		\
			*failed = 1;						\
			return;							\
		}								\
	} while (0)

#define HARNESS_MAIN(suite)							\
	struct test_case test_cases[MAX_TESTS];					\
	int nr_test_cases;							\
	int main(int argc, char **argv)						\
	{									\
		int passed = 0, nfailed = 0;					\
		for (int i = 0; i < nr_test_cases; i++) {			\
			int failed = 0;						\
			if (argc > 1 && !strstr(test_cases[i].name, argv[1]))	\
				continue;					\
			test_cases[i].fn(&failed);				\
			printf("%s %s/%s\n", failed ? "FAIL" : "PASS", suite,	\
			       test_cases[i].name);				\
			fflush(stdout);						\
			if (failed)						\
				nfailed++;					\
			else							\
				passed++;					\
		}								\
		printf("%d passed, %d failed\n", passed, nfailed);		\
		return nfailed ? 1 : 0;						\
	}

#endif /* __LAVD_HARNESS_H */
