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

#ifdef __cplusplus
extern "C" {
#endif

/* Writes every thread's buffered events to the output now. */
void racepred_rt_flush(void);
/* Stops recording: later events are dropped; what was recorded stays a valid prefix. */
void racepred_rt_stop(void);
/* 1 while the runtime records, else 0. */
int racepred_rt_recording(void);

#ifdef __cplusplus
}
#endif

#endif
