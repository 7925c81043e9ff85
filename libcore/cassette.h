/* cassette.h — record and replay of network exchanges at the transport seam
 * (cassette.c, doc/cassettes.md): the client's deck, set from SEAM_RECORD or
 * SEAM_REPLAY, and what a transfer records of its response. */
#ifndef SEAM_CASSETTE_H
#define SEAM_CASSETTE_H

#include "transport.h"

typedef struct seam_cassettes seam_cassettes;
typedef struct seam_recording seam_recording;

/* The deck the environment asks for: SEAM_REPLAY=DIR (which wins) or
 * SEAM_RECORD=DIR (created 0700 when missing). *out NULL when neither is set.
 * SEAM_ERR_CONF with err filled when the directory cannot be used. */
int seam_cassettes_from_env(seam_cassettes **out, seam_error *err);
void seam_cassettes_free(seam_cassettes *d);
int seam_cassettes_replaying(const seam_cassettes *d);
int seam_cassettes_recording(const seam_cassettes *d);

/* The response bytes of one transfer as they arrive, each with its time. */
seam_recording *seam_recording_new(void);
void seam_recording_free(seam_recording *r);
/* SEAM_ERR_INVALID past the size limit of a cassette, SEAM_ERR_NOMEM. */
int seam_recording_add(seam_recording *r, const char *data, size_t len);

/* Writes the exchange as a new cassette of d (secrets removed: auth headers,
 * headers the codec marked secret, and the credential wherever it appears).
 * Thread-safe. */
int seam_cassette_write(seam_cassettes *d, const seam_http_request *hr, const char *credential, long status,
                        const seam_http_headers *resp, const seam_recording *rec, int cut, seam_error *err);
/* Fills *out with the recorded answer to hr (the n-th asked, the n-th
 * answer). SEAM_ERR_NOT_FOUND with err naming the request when there is none.
 * Thread-safe. */
int seam_cassette_load(seam_cassettes *d, const seam_http_request *hr, const char *credential, seam_served *out,
                       seam_error *err);

#endif
