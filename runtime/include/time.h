/* time.h for the simulated EM-X: simulated time (this PE's clock counter), from the
 * start of the run: time() in seconds, clock() in CLOCKS_PER_SEC units. */
#ifndef EMX_TIME_H
#define EMX_TIME_H

#include <stddef.h>

typedef long long time_t;
typedef long clock_t;
#define CLOCKS_PER_SEC 1000000L

time_t time(time_t *t);
clock_t clock(void);
double difftime(time_t a, time_t b);

#endif
