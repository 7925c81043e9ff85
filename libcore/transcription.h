/* transcription.h — seam_transcription's insides, shared by transcription.c
 * (the type) and transcribe.c (the call, which fills provider and model). */
#ifndef SEAM_TRANSCRIPTION_H
#define SEAM_TRANSCRIPTION_H

#include <seam/transcribe.h>

struct seam_transcription {
    char *text;
    seam_usage usage;
    double seconds; /* -1: unknown */
    char *provider;
    char *model;
};

#endif
