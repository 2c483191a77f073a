// parcomp's Python module (_parcomp): the public C++ API (include/parcomp/parcomp.hpp) for the
// package's Python layer (python/parcomp/). The GIL is released while the library works; a
// Python file object is read from the library's threads with the GIL taken for each read.
#include <parcomp/parcomp.hpp>

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <Python.h>

#include <atomic>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace nb = nanobind;

namespace {

// A bytes-like object's bytes (the buffer protocol), held while the view lives.
class View {
 public:
  explicit View(nb::handle obj) {
    if (PyObject_GetBuffer(obj.ptr(), &view_, PyBUF_SIMPLE) != 0) throw nb::python_error();
  }
  ~View() { PyBuffer_Release(&view_); }
  View(const View&) = delete;
  View& operator=(const View&) = delete;
  std::span<const std::uint8_t> bytes() const { return {static_cast<const std::uint8_t*>(view_.buf), static_cast<std::size_t>(view_.len)}; }

 private:
  Py_buffer view_{};
};

nb::bytes to_bytes(const std::vector<std::uint8_t>& v) { return nb::bytes(reinterpret_cast<const char*>(v.data()), v.size()); }

parcomp::Options options(const std::string& format, int level, int threads, bool use_gpus, const std::vector<int>& devices) {
  parcomp::Options o;
  if (format == "bz2")
    o.format = parcomp::Format::bz2;
  else if (format == "parcomp")
    o.format = parcomp::Format::parcomp;
  else
    throw parcomp::ContractError("format must be \"bz2\" or \"parcomp\", not \"" + format + "\"");
  o.level = level;
  o.threads = threads;
  o.use_gpus = use_gpus;
  o.devices = devices;
  return o;
}

// A Python file object as a source: readinto() (or read()) with the GIL taken, from the
// library's reader thread.
class PyFileSource : public parcomp::Source {
 public:
  explicit PyFileSource(nb::object file) : file_(std::move(file)) {}
  std::size_t read(std::uint8_t* buf, std::size_t max) override {
    nb::gil_scoped_acquire gil;
    try {
      if (nb::hasattr(file_, "readinto")) {
        nb::object mv = nb::steal(PyMemoryView_FromMemory(reinterpret_cast<char*>(buf), static_cast<Py_ssize_t>(max), PyBUF_WRITE));
        if (!mv) throw nb::python_error();
        nb::object got = file_.attr("readinto")(mv);
        return got.is_none() ? 0 : nb::cast<std::size_t>(got);
      }
      nb::object got = file_.attr("read")(max);
      View v(got);
      const std::size_t n = std::min(max, v.bytes().size());
      std::memcpy(buf, v.bytes().data(), n);
      return n;
    } catch (nb::python_error& e) {
      throw parcomp::IoError(std::string("reading the file object: ") + e.what());
    }
  }
  ~PyFileSource() override {
    nb::gil_scoped_acquire gil;
    file_.reset();
  }

 private:
  nb::object file_;
};

// A file descriptor (an int, read as it is, left open) or a Python file object as a source.
std::unique_ptr<parcomp::Source> source_of(nb::object source) {
  if (nb::isinstance<int>(source)) return std::make_unique<parcomp::FdSource>(nb::cast<int>(source));
  return std::make_unique<PyFileSource>(std::move(source));
}

// Counts what passes, so that the Python layer tells an empty input (no bytes at all) apart.
class Counted : public parcomp::Source {
 public:
  explicit Counted(std::unique_ptr<parcomp::Source> in) : in_(std::move(in)) {}
  std::size_t read(std::uint8_t* buf, std::size_t max) override {
    const std::size_t n = in_->read(buf, max);
    bytes += n;
    return n;
  }
  std::atomic<std::uint64_t> bytes{0};

 private:
  std::unique_ptr<parcomp::Source> in_;
};

// parcomp::Reader over a file descriptor or a Python file object.
class PyReader {
 public:
  PyReader(nb::object source, bool compress, const std::string& format, int level, int threads, bool use_gpus, const std::vector<int>& devices,
           std::uint64_t input_size, bool collect_offsets) {
    parcomp::Options o = options(format, level, threads, use_gpus, devices);
    o.input_size = input_size;
    o.collect_block_offsets = collect_offsets;
    in_ = std::make_unique<Counted>(source_of(std::move(source)));
    reader_ = std::make_unique<parcomp::Reader>(*in_, compress ? parcomp::Stream::Direction::compress : parcomp::Stream::Direction::decompress, o);
  }
  ~PyReader() { close(); }
  std::size_t readinto(nb::handle buffer) {
    Py_buffer view{};
    if (PyObject_GetBuffer(buffer.ptr(), &view, PyBUF_WRITABLE) != 0) throw nb::python_error();
    std::size_t n = 0;
    try {
      nb::gil_scoped_release release;
      if (!reader_) throw parcomp::ContractError("the reader is closed");
      n = reader_->read(static_cast<std::uint8_t*>(view.buf), static_cast<std::size_t>(view.len));
    } catch (...) {
      PyBuffer_Release(&view);
      throw;
    }
    PyBuffer_Release(&view);
    return n;
  }
  std::uint64_t bytes_read() const { return in_ ? in_->bytes.load() : 0; }
  // After the end: (input bit, output byte) of every block and end marker.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> block_offsets() const {
    if (!reader_) throw parcomp::ContractError("the reader is closed");
    return reader_->stats().block_offsets;
  }
  // Abandons the work; the reader thread may need the GIL for a last read, so it is let go.
  void close() {
    nb::gil_scoped_release release;
    reader_.reset();
    in_.reset();
  }

 private:
  std::unique_ptr<Counted> in_;
  std::unique_ptr<parcomp::Reader> reader_;
};

// decompress_to_device's result, shared by the DLPack tensors made from it.
struct DeviceOut {
  std::shared_ptr<parcomp::DeviceOutput> out;
};

class PyCompressor {
 public:
  PyCompressor(const std::string& format, int level, int threads, bool use_gpus, const std::vector<int>& devices)
      : stream_(std::make_unique<parcomp::Stream>(parcomp::Stream::Direction::compress, options(format, level, threads, use_gpus, devices))) {}
  ~PyCompressor() {
    nb::gil_scoped_release release;
    stream_.reset();
  }
  nb::bytes compress(nb::handle data) {
    if (flushed_) throw parcomp::ContractError("Compressor has been flushed");
    View v(data);
    std::vector<std::uint8_t> out;
    {
      nb::gil_scoped_release release;
      out = stream_->push(v.bytes());
    }
    return to_bytes(out);
  }
  nb::bytes flush() {
    if (flushed_) throw parcomp::ContractError("Repeated call to flush()");
    flushed_ = true;
    std::vector<std::uint8_t> out;
    {
      nb::gil_scoped_release release;
      out = stream_->finish();
    }
    return to_bytes(out);
  }

 private:
  std::unique_ptr<parcomp::Stream> stream_;
  bool flushed_ = false;
};

}  // namespace

NB_MODULE(_parcomp, m) {
  m.doc() = "parcomp's library: .bz2 and the parcomp format on every CPU core and GPU";
  static nb::object corrupt = nb::steal(PyErr_NewException("parcomp.CorruptDataError", PyExc_OSError, nullptr));
  static nb::object gpu = nb::steal(PyErr_NewException("parcomp.GpuError", PyExc_RuntimeError, nullptr));
  m.attr("CorruptDataError") = corrupt;
  m.attr("GpuError") = gpu;
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const parcomp::CorruptDataError& e) {
      PyErr_SetString(corrupt.ptr(), e.what());
    } catch (const parcomp::ContractError& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const parcomp::IoError& e) {
      PyErr_SetString(PyExc_OSError, e.what());
    } catch (const parcomp::GpuError& e) {
      PyErr_SetString(gpu.ptr(), e.what());
    }
  });

  m.def("version", [] { return std::string(parcomp::version()); });
  m.def(
      "compress",
      [](nb::handle data, int level, const std::string& format, int threads, bool use_gpus, const std::vector<int>& devices) {
        const parcomp::Options o = options(format, level, threads, use_gpus, devices);
        View v(data);
        std::vector<std::uint8_t> out;
        {
          nb::gil_scoped_release release;
          out = parcomp::compress(v.bytes(), o);
        }
        return to_bytes(out);
      },
      nb::arg("data"), nb::arg("level"), nb::arg("format"), nb::arg("threads"), nb::arg("use_gpus"), nb::arg("devices"));
  m.def(
      "decompress",
      [](nb::handle data, int threads, bool use_gpus, const std::vector<int>& devices) {
        const parcomp::Options o = options("bz2", 9, threads, use_gpus, devices);
        View v(data);
        std::vector<std::uint8_t> out;
        {
          nb::gil_scoped_release release;
          out = parcomp::decompress(v.bytes(), o);
        }
        return to_bytes(out);
      },
      nb::arg("data"), nb::arg("threads"), nb::arg("use_gpus"), nb::arg("devices"));

  nb::class_<PyCompressor>(m, "Compressor")
      .def(nb::init<const std::string&, int, int, bool, const std::vector<int>&>(), nb::arg("format"), nb::arg("level"), nb::arg("threads"),
           nb::arg("use_gpus"), nb::arg("devices"))
      .def("compress", &PyCompressor::compress)
      .def("flush", &PyCompressor::flush);

  nb::class_<parcomp::Bz2Decompressor>(m, "Bz2Decompressor")
      .def(nb::init<>())
      .def(
          "decompress",
          [](parcomp::Bz2Decompressor& d, nb::handle data, Py_ssize_t max_length) {
            if (d.eof()) {
              PyErr_SetString(PyExc_EOFError, "End of stream already reached");
              throw nb::python_error();
            }
            View v(data);
            std::vector<std::uint8_t> out;
            {
              nb::gil_scoped_release release;
              out = d.decompress(v.bytes(), max_length < 0 ? SIZE_MAX : static_cast<std::size_t>(max_length));
            }
            return to_bytes(out);
          },
          nb::arg("data"), nb::arg("max_length") = -1)
      .def_prop_ro("eof", &parcomp::Bz2Decompressor::eof)
      .def_prop_ro("needs_input", &parcomp::Bz2Decompressor::needs_input)
      .def_prop_ro("unused_data", [](const parcomp::Bz2Decompressor& d) { return to_bytes(d.unused_data()); });

  nb::class_<PyReader>(m, "Reader")
      .def(nb::init<nb::object, bool, const std::string&, int, int, bool, const std::vector<int>&, std::uint64_t, bool>(), nb::arg("source"),
           nb::arg("compress"), nb::arg("format"), nb::arg("level"), nb::arg("threads"), nb::arg("use_gpus"), nb::arg("devices"),
           nb::arg("input_size"), nb::arg("collect_offsets") = false)
      .def("readinto", &PyReader::readinto)
      .def("block_offsets", &PyReader::block_offsets)
      .def_prop_ro("bytes_read", &PyReader::bytes_read)
      .def("close", &PyReader::close);

  nb::class_<parcomp::Bz2Range>(m, "Bz2Range")
      .def_prop_ro("bytes", [](const parcomp::Bz2Range& r) { return to_bytes(r.bytes); })
      .def_ro("blocks", &parcomp::Bz2Range::blocks)
      .def_ro("first_bit", &parcomp::Bz2Range::first_bit)
      .def_ro("next_bit", &parcomp::Bz2Range::next_bit)
      .def_ro("more", &parcomp::Bz2Range::more)
      .def_ro("need_input", &parcomp::Bz2Range::need_input);
  m.def(
      "decode_range",
      [](nb::handle data, std::uint64_t from_bit, std::uint64_t to_bit, bool input_ends_here, std::uint64_t max_blocks, unsigned threads) {
        View v(data);
        nb::gil_scoped_release release;
        return parcomp::bz2_decode_range(v.bytes(), from_bit, to_bit, input_ends_here, max_blocks, threads);
      },
      nb::arg("data"), nb::arg("from_bit"), nb::arg("to_bit"), nb::arg("input_ends_here"), nb::arg("max_blocks") = UINT64_MAX,
      nb::arg("threads") = 1);

  m.def(
      "decode_blocks",
      [](nb::handle data, const std::vector<std::uint64_t>& bits, unsigned threads) {
        View v(data);
        std::vector<std::vector<std::uint8_t>> outs;
        {
          nb::gil_scoped_release release;
          outs = parcomp::bz2_decode_blocks(v.bytes(), bits, threads);
        }
        std::size_t total = 0;
        for (const auto& o : outs) total += o.size();
        std::vector<std::uint8_t> all;
        all.reserve(total);
        for (const auto& o : outs) all.insert(all.end(), o.begin(), o.end());
        return to_bytes(all);
      },
      nb::arg("data"), nb::arg("bits"), nb::arg("threads") = 0);

  // The output in a GPU's memory (DeviceOut); its dlpack() makes a DLPack tensor that holds it.
  nb::class_<DeviceOut>(m, "DeviceOut")
      .def_prop_ro("ptr", [](const DeviceOut& d) { return reinterpret_cast<std::uintptr_t>(d.out->data()); })
      .def_prop_ro("nbytes", [](const DeviceOut& d) { return d.out->size(); })
      .def_prop_ro("device", [](const DeviceOut& d) { return d.out->device(); })
      .def("dlpack", [](const DeviceOut& d) {
        auto* held = new std::shared_ptr<parcomp::DeviceOutput>(d.out);
        nb::capsule owner(held, [](void* p) noexcept { delete static_cast<std::shared_ptr<parcomp::DeviceOutput>*>(p); });
        const std::size_t shape[1] = {d.out->size()};
        return nb::ndarray<std::uint8_t, nb::ndim<1>, nb::device::cuda>(d.out->data(), 1, shape, owner, nullptr, nb::dtype<std::uint8_t>(),
                                                                         nb::device::cuda::value, d.out->device());
      });
  m.def(
      "decompress_to_device",
      [](nb::object source, int device, int threads, bool use_gpus, const std::vector<int>& devices, std::uint64_t input_size) {
        parcomp::Options o = options("bz2", 9, threads, use_gpus, devices);
        o.input_size = input_size;
        DeviceOut result;
        auto run = [&](parcomp::Source& in) {
          nb::gil_scoped_release release;
          result.out = std::make_shared<parcomp::DeviceOutput>(parcomp::decompress_to_device(in, device, o));
        };
        if (PyObject_CheckBuffer(source.ptr())) {  // the compressed bytes themselves
          View v(source);
          parcomp::MemorySource in(v.bytes());
          if (o.input_size == 0) o.input_size = v.bytes().size();
          run(in);
        } else {
          run(*source_of(std::move(source)));
        }
        return result;
      },
      nb::arg("source"), nb::arg("device"), nb::arg("threads"), nb::arg("use_gpus"), nb::arg("devices"), nb::arg("input_size") = 0);
  // A device array's bytes back on the host (for checks and small outputs).
  m.def("device_to_bytes", [](std::uintptr_t ptr, std::size_t size) {
    std::vector<std::uint8_t> host(size);
    {
      nb::gil_scoped_release release;
      parcomp::copy_to_host(host.data(), reinterpret_cast<const void*>(ptr), size);
    }
    return to_bytes(host);
  });
  // The parcomp format by frames: its end marker, its index, one frame.
  m.def("parcomp_stream_end", [](nb::handle data) {
    View v(data);
    const parcomp::ParcompEnd e = parcomp::parcomp_stream_end(v.bytes());
    return nb::make_tuple(e.frames, e.original_bytes, e.index_offset);
  });
  m.def("parcomp_stream_index", [](nb::handle data, std::uint64_t index_offset) {
    View v(data);
    return parcomp::parcomp_stream_index(v.bytes(), index_offset);
  });
  m.def(
      "parcomp_decode_frame",
      [](nb::handle header, nb::handle frame, std::uint64_t frame_offset, unsigned threads) {
        View h(header), f(frame);
        std::vector<std::uint8_t> out;
        {
          nb::gil_scoped_release release;
          out = parcomp::parcomp_decode_frame(h.bytes(), f.bytes(), frame_offset, threads);
        }
        return to_bytes(out);
      },
      nb::arg("header"), nb::arg("frame"), nb::arg("frame_offset"), nb::arg("threads") = 0);
  m.def("set_gpu_memory_limit", &parcomp::set_gpu_memory_limit);
}
