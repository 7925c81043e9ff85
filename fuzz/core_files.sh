# fuzz/core_files.sh — the libcore files a codec harness links (sourced by
# fuzz/run.sh and fuzz/scan_diff.sh): libseam's types, framing and the parts a
# plugin calls back into, without the transport, the registry or the conf.
# One list, so that a file a codec starts to need is added once for both.
FUZZ_CORE_FILES="util error jsonparse message request result sse http embedding media mediastore mediareq mediaemit multipart transcription sha256 codec_json codec_stream codec_toolcalls codec_errors codec_text"
