/* racepred recording runtime: public C interface (docs/RECORDER.md).
 *
 * Programs compiled with -fsanitize=thread (compile only) and linked against
 * libracepred_rt.a (see racepred-cc) record a raw trace when the environment variable
 * RACEPRED_RECORD names an output file ("%p" in it is replaced by the process id).
 * `racepred record -- PROG ARGS` sets it and turns the raw recording into a trace.
 *
 * Besides the __tsan_* entry points and the interceptors, the runtime exports these
 * functions (all prefixed racepred_rt_). They may be called from any thread. */
#ifndef RACEPRED_RT_H
#define RACEPRED_RT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Writes every thread's buffered events to the output now. */
void racepred_rt_flush(void);
/* Stops recording: later events are dropped; what was recorded stays a valid prefix. */
void racepred_rt_stop(void);
/* 1 while the runtime records, else 0. */
int racepred_rt_recording(void);

/* ThreadSanitizer's annotations, with the meaning ThreadSanitizer gives them (programs written
 * for it link unchanged; docs/RECORDER.md "Annotations"):
 * AnnotateHappensBefore / __tsan_release: send(addr); AnnotateHappensAfter / __tsan_acquire:
 * recv(addr) (every later recv is ordered after every earlier send on addr). */
void AnnotateHappensBefore(const char* file, int line, const volatile void* addr);
void AnnotateHappensAfter(const char* file, int line, const volatile void* addr);
void __tsan_release(void* addr);
void __tsan_acquire(void* addr);
/* Races on [addr, addr + size) are not reported: `racepred record` drops its accesses. */
void AnnotateBenignRaceSized(const char* file, int line, const volatile void* addr, size_t size,
                             const char* description);
void AnnotateBenignRace(const char* file, int line, const volatile void* addr,
                        const char* description);
/* ThreadSanitizer's test-only barrier: threads wait for each other, but it orders nothing (a
 * race behind it is still a race). `barrier` is one 64-bit word, count < 256. */
void __tsan_testonly_barrier_init(unsigned long long* barrier, unsigned count);
void __tsan_testonly_barrier_wait(unsigned long long* barrier);

#ifdef __cplusplus
}
#endif

#endif
