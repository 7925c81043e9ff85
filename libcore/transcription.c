/* transcription.c — seam_transcription, the result of speech to text: the
 * text, the usage and the seconds, filled by a plugin's transcribe_decode
 * and read by the application (seam_transcribe is transcribe.c's). Apart
 * from the call so that codecs and their fuzzers link it alone. */
#include "config.h"
#include "internal.h"
#include "transcription.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

seam_transcription *seam_transcription_new(void)
{
    seam_transcription *t = calloc(1, sizeof *t);
    if (t)
        t->seconds = -1;
    return t;
}

void seam_transcription_free(seam_transcription *t)
{
    if (!t)
        return;
    free(t->text);
    free(t->provider);
    free(t->model);
    free(t);
}

const char *seam_transcription_text(const seam_transcription *t)
{
    return t && t->text ? t->text : "";
}

const seam_usage *seam_transcription_usage(const seam_transcription *t)
{
    return t ? &t->usage : NULL;
}

double seam_transcription_seconds(const seam_transcription *t)
{
    return t ? t->seconds : -1;
}

const char *seam_transcription_provider(const seam_transcription *t)
{
    return t ? t->provider : NULL;
}

const char *seam_transcription_model(const seam_transcription *t)
{
    return t ? t->model : NULL;
}

int seam_transcription_set_text(seam_transcription *t, const char *text)
{
    if (!t || !text)
        return SEAM_ERR_INVALID;
    char *copy = strdup(text);
    if (!copy)
        return SEAM_ERR_NOMEM;
    free(t->text);
    t->text = copy;
    return SEAM_OK;
}

int seam_transcription_set_usage(seam_transcription *t, const seam_usage *usage)
{
    if (!t || !usage)
        return SEAM_ERR_INVALID;
    t->usage = *usage;
    return SEAM_OK;
}

int seam_transcription_set_seconds(seam_transcription *t, double seconds)
{
    if (!t || !isfinite(seconds) || seconds < 0)
        return SEAM_ERR_INVALID;
    t->seconds = seconds;
    return SEAM_OK;
}

