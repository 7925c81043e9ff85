/* tu_openai.h — fixtures the OpenAI-compatible plugin's test programs share
 * (tu_openai.c). They are built with the plugin's sources: create_with calls
 * oa_create directly. */
#ifndef TU_OPENAI_H
#define TU_OPENAI_H

#include "fakeserver.h"
#include <seam/seam.h>

#define KEY "sk-test-secret-123"

#define CH(delta, finish) \
    "{\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":" delta ",\"finish_reason\":" finish "}]}"


extern fake_server *srv;
extern seam_client *client;

/* Builds an SSE body from payload lines (NULL-terminated), ending with [DONE]
 * when done is set. */
char *sse(int done, const char *const *lines);

/* The SSE answer of text_lines (with [DONE]) most tests push, made once. */
extern char *text_sse;

/* The suites' init: the fake server, a client on the providers, text_sse. */
int start(void);

/* An instance of the plugin named name, made by oa_create; NULL (printed)
 * when refused. */
void *create_with(const char *name, const char *base_url, const char *options);

#endif
