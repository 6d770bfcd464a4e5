/*
 * unit.c: the count of failed expectations every unit test keeps (unit.h).
 */
#include "unit.h"

int unit_failures;

int unit_status(void)
{
    if (unit_failures)
        printf("%d expectation(s) failed\n", unit_failures);
    return unit_failures != 0;
}
