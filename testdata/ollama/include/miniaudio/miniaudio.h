/*
 * A stand-in for miniaudio.h, which llama.cpp vendors but the Go module
 * download of github.com/ollama/ollama leaves out (and Debian does not
 * package). It declares only what llama.cpp's tools/mtmd/mtmd-helper.cpp
 * uses, and decodes nothing: every decoder call fails, so audio input is
 * refused. The tests that build Ollama from this module never send audio.
 */
#ifndef MCPEVAL_MINIAUDIO_STANDIN_H
#define MCPEVAL_MINIAUDIO_STANDIN_H

#include <stddef.h>
#include <stdint.h>

typedef uint32_t ma_uint32;
typedef uint64_t ma_uint64;
typedef int ma_result;

#define MA_SUCCESS 0
#define MA_NOT_IMPLEMENTED (-29)

typedef enum { ma_format_unknown = 0, ma_format_f32 = 5 } ma_format;

typedef struct {
    ma_format format;
    ma_uint32 channels;
    ma_uint32 sampleRate;
} ma_decoder_config;

typedef struct {
    ma_decoder_config config;
} ma_decoder;

#ifndef MA_API
#define MA_API
#endif

MA_API inline ma_decoder_config ma_decoder_config_init(ma_format format, ma_uint32 channels, ma_uint32 sampleRate) {
    ma_decoder_config c;
    c.format = format;
    c.channels = channels;
    c.sampleRate = sampleRate;
    return c;
}

MA_API inline ma_result ma_decoder_init_memory(const void * data, size_t size, const ma_decoder_config * config, ma_decoder * decoder) {
    (void)data; (void)size; (void)config; (void)decoder;
    return MA_NOT_IMPLEMENTED;
}

MA_API inline ma_result ma_decoder_get_length_in_pcm_frames(ma_decoder * decoder, ma_uint64 * length) {
    (void)decoder;
    *length = 0;
    return MA_NOT_IMPLEMENTED;
}

MA_API inline ma_result ma_decoder_read_pcm_frames(ma_decoder * decoder, void * frames, ma_uint64 count, ma_uint64 * read) {
    (void)decoder; (void)frames; (void)count;
    *read = 0;
    return MA_NOT_IMPLEMENTED;
}

MA_API inline ma_result ma_decoder_uninit(ma_decoder * decoder) {
    (void)decoder;
    return MA_SUCCESS;
}

#endif
