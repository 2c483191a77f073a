// The C API (include/parcomp/parcomp.h) over the C++ one: exceptions become error codes and a
// message kept per thread.
#include "parcomp/parcomp.h"

#include "parcomp/parcomp.hpp"

#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

namespace {

thread_local std::string last_error;

parcomp::Options cpp_options(const parcomp_options* c) {
  parcomp::Options o;
  if (c == nullptr) return o;
  if (c->format != PARCOMP_FORMAT_BZ2 && c->format != PARCOMP_FORMAT_PARCOMP)
    throw parcomp::ContractError("format must be PARCOMP_FORMAT_BZ2 or PARCOMP_FORMAT_PARCOMP, not " + std::to_string(c->format));
  o.format = c->format == PARCOMP_FORMAT_BZ2 ? parcomp::Format::bz2 : parcomp::Format::parcomp;
  o.level = c->level;
  o.threads = c->threads;
  o.use_gpus = c->use_gpus != 0;
  o.require_gpu = c->require_gpu != 0;
  o.input_size = c->input_size;
  return o;
}

// Runs f, returning PARCOMP_OK or the error's code (its message kept for parcomp_last_error).
template <typename F>
int call(F&& f) noexcept {
  try {
    f();
    last_error.clear();
    return PARCOMP_OK;
  } catch (const parcomp::ContractError& e) {
    last_error = e.what();
    return PARCOMP_ERROR_USAGE;
  } catch (const parcomp::CorruptDataError& e) {
    last_error = e.what();
    return PARCOMP_ERROR_DATA;
  } catch (const parcomp::IoError& e) {
    last_error = e.what();
    return PARCOMP_ERROR_IO;
  } catch (const parcomp::GpuError& e) {
    last_error = e.what();
    return PARCOMP_ERROR_GPU;
  } catch (const std::bad_alloc&) {
    last_error = "out of host memory";
    return PARCOMP_ERROR_MEMORY;
  } catch (const std::exception& e) {
    last_error = e.what();
    return PARCOMP_ERROR_INTERNAL;
  } catch (...) {
    last_error = "an unknown error";
    return PARCOMP_ERROR_INTERNAL;
  }
}

// The library's copy of `bytes` for the caller (*dst, *dst_size).
void hand_over(const std::vector<std::uint8_t>& bytes, void** dst, std::size_t* dst_size) {
  void* p = std::malloc(bytes.empty() ? 1 : bytes.size());
  if (p == nullptr) throw std::bad_alloc();
  if (!bytes.empty()) std::memcpy(p, bytes.data(), bytes.size());
  *dst = p;
  *dst_size = bytes.size();
}

int buffer_call(bool compress, const void* src, std::size_t src_size, void** dst, std::size_t* dst_size, const parcomp_options* options) {
  return call([&] {
    if (dst == nullptr || dst_size == nullptr) throw parcomp::ContractError("dst and dst_size must not be NULL");
    if (src == nullptr && src_size != 0) throw parcomp::ContractError("src is NULL but src_size is not 0");
    *dst = nullptr;
    *dst_size = 0;
    const std::span<const std::uint8_t> in(static_cast<const std::uint8_t*>(src), src_size);
    hand_over(compress ? parcomp::compress(in, cpp_options(options)) : parcomp::decompress(in, cpp_options(options)), dst, dst_size);
  });
}

int fd_call(bool compress, int in_fd, int out_fd, const parcomp_options* options) {
  return call([&] {
    parcomp::FdSource in(in_fd);
    parcomp::FdSink out(out_fd);
    if (compress) parcomp::compress(in, out, cpp_options(options));
    else parcomp::decompress(in, out, cpp_options(options));
  });
}

int stream_call(bool compress, parcomp_read_fn read, void* read_user, parcomp_write_fn write, void* write_user, const parcomp_options* options) {
  return call([&] {
    if (read == nullptr || write == nullptr) throw parcomp::ContractError("read and write must not be NULL");
    parcomp::CallbackSource in([&](std::uint8_t* buf, std::size_t max) {
      const long long r = read(read_user, buf, max);
      if (r < 0 || static_cast<unsigned long long>(r) > max) throw parcomp::IoError("the read callback failed");
      return static_cast<std::size_t>(r);
    });
    parcomp::CallbackSink out([&](const std::uint8_t* buf, std::size_t n) {
      if (write(write_user, buf, n) != 0) throw parcomp::IoError("the write callback failed");
    });
    if (compress) parcomp::compress(in, out, cpp_options(options));
    else parcomp::decompress(in, out, cpp_options(options));
  });
}

}  // namespace

struct parcomp_stream {
  parcomp::Stream stream;
  parcomp_stream(int decompress, const parcomp_options* options)
      : stream(decompress != 0 ? parcomp::Stream::Direction::decompress : parcomp::Stream::Direction::compress, cpp_options(options)) {}
};

struct parcomp_reader {
  parcomp::FdSource in;
  parcomp::Reader reader;
  parcomp_reader(int fd, int decompress, const parcomp_options* options)
      : in(fd), reader(in, decompress != 0 ? parcomp::Stream::Direction::decompress : parcomp::Stream::Direction::compress, cpp_options(options)) {}
};

extern "C" {

parcomp_reader* parcomp_reader_new(int in_fd, int decompress, const parcomp_options* options) {
  parcomp_reader* r = nullptr;
  call([&] { r = new parcomp_reader(in_fd, decompress, options); });
  return r;
}

int parcomp_reader_read(parcomp_reader* reader, void* buf, size_t max, size_t* got) {
  return call([&] {
    if (reader == nullptr || got == nullptr || (buf == nullptr && max != 0)) throw parcomp::ContractError("reader, buf and got must not be NULL");
    *got = 0;
    *got = reader->reader.read(static_cast<std::uint8_t*>(buf), max);
  });
}

void parcomp_reader_free(parcomp_reader* reader) { delete reader; }

parcomp_stream* parcomp_stream_new(int decompress, const parcomp_options* options) {
  parcomp_stream* s = nullptr;
  call([&] { s = new parcomp_stream(decompress, options); });
  return s;
}

int parcomp_stream_push(parcomp_stream* stream, const void* src, size_t src_size, void** dst, size_t* dst_size) {
  return call([&] {
    if (stream == nullptr || dst == nullptr || dst_size == nullptr) throw parcomp::ContractError("stream, dst and dst_size must not be NULL");
    if (src == nullptr && src_size != 0) throw parcomp::ContractError("src is NULL but src_size is not 0");
    *dst = nullptr;
    *dst_size = 0;
    hand_over(stream->stream.push({static_cast<const std::uint8_t*>(src), src_size}), dst, dst_size);
  });
}

int parcomp_stream_finish(parcomp_stream* stream, void** dst, size_t* dst_size) {
  return call([&] {
    if (stream == nullptr || dst == nullptr || dst_size == nullptr) throw parcomp::ContractError("stream, dst and dst_size must not be NULL");
    *dst = nullptr;
    *dst_size = 0;
    hand_over(stream->stream.finish(), dst, dst_size);
  });
}

void parcomp_stream_free(parcomp_stream* stream) { delete stream; }


void parcomp_options_init(parcomp_options* options) {
  if (options == nullptr) return;
  options->format = PARCOMP_FORMAT_BZ2;
  options->level = 9;
  options->threads = -1;
  options->use_gpus = 1;
  options->require_gpu = 0;
  options->input_size = 0;
}

int parcomp_compress_buffer(const void* src, size_t src_size, void** dst, size_t* dst_size, const parcomp_options* options) {
  return buffer_call(true, src, src_size, dst, dst_size, options);
}
int parcomp_decompress_buffer(const void* src, size_t src_size, void** dst, size_t* dst_size, const parcomp_options* options) {
  return buffer_call(false, src, src_size, dst, dst_size, options);
}
void parcomp_free(void* p) { std::free(p); }

int parcomp_compress_fd(int in_fd, int out_fd, const parcomp_options* options) { return fd_call(true, in_fd, out_fd, options); }
int parcomp_decompress_fd(int in_fd, int out_fd, const parcomp_options* options) { return fd_call(false, in_fd, out_fd, options); }

int parcomp_compress_stream(parcomp_read_fn read, void* read_user, parcomp_write_fn write, void* write_user, const parcomp_options* options) {
  return stream_call(true, read, read_user, write, write_user, options);
}
int parcomp_decompress_stream(parcomp_read_fn read, void* read_user, parcomp_write_fn write, void* write_user, const parcomp_options* options) {
  return stream_call(false, read, read_user, write, write_user, options);
}

const char* parcomp_last_error(void) { return last_error.c_str(); }
const char* parcomp_version(void) { return parcomp::version(); }

}  // extern "C"
