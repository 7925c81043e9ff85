/* mediagen_int.h — what the files of media generation share: the request's
 * fields and the sink a plugin's media decoders write to (mediareq.c), the
 * job's constructor and its poll operation (mediajob.c), used by
 * seam_generate_media (mediagen.c). */
#ifndef SEAM_MEDIAGEN_INT_H
#define SEAM_MEDIAGEN_INT_H

#include "client.h"

struct seam_media_request {
    uint32_t modality;
    char *prompt;
    char *model;
    char *mime_type;
    char *voice;
    char *size;
    char *options;
    int count;
    int seconds;
    int64_t deadline_ms;
};

/* Media one answer may hold: OpenAI's n is at most 10, Imagen's sampleCount 4. */
#define SEAM_MEDIA_SINK_MAX 16
/* A job's ref: the plugin's own text (seam_media_sink_pending). */
#define SEAM_MEDIA_REF_MAX 2048

typedef struct seam_media_item {
    char handle[SEAM_MEDIA_HANDLE_SIZE];
    char mime_type[256];
    int64_t bytes;
} seam_media_item;

struct seam_media_sink {
    seam_client *client;     /* the store; NULL: handles computed, nothing stored */
    seam_media_item items[SEAM_MEDIA_SINK_MAX];
    size_t n;
    int pending;             /* seam_media_sink_pending was called */
    char *ref;
    double progress;
    int fetch_now;
    double seconds;          /* 0: not said */
    seam_usage usage;
    int has_usage;
};

void seam_media_sink_init(seam_media_sink *s, seam_client *client);
void seam_media_sink_clear(seam_media_sink *s);
/* The sink's media as media_start / media_end chunks (handles only), then a
 * stop chunk with its usage. */
int seam_media_sink_emit(const seam_media_sink *s, seam_emitter *em);

/* A pending job accepted by provider/model with ref (mediajob.c). NULL
 * without memory. */
seam_media_job *seam_media_job_accepted(seam_client *client, const char *provider,
                                        const char *model, uint32_t modality, const char *ref,
                                        double progress, int seconds, int64_t deadline_ms);

/* The media units of a result of modality: seconds of audio or video from
 * what the answer said, else the request's length (video). */
void seam_media_add_seconds(seam_result *res, uint32_t modality, double said, int asked);

#endif
