// map(fd, length): the first `length` bytes of an open file as an ArrayBuffer backed by a private
// mapping of it (mmap), unmapped when the buffer is collected. The search index reads its largest
// files in place through it (src/core/base/search/file-map.ts): no read calls, no copies, and the
// pages are the OS's file cache, not the process's own memory. Private and writable, so a stray
// write changes the process's copy of a page, never the file, and cannot fault.
//
// Written against V8's own API because Node-API refuses external buffers over 4 GiB, and the lists
// of a 21M-passage index are larger; so it is built for one Node version (scripts/build-native.mjs),
// and any other Node, or Electron, falls back to positional reads.
#include <errno.h>
#include <node.h>
#include <string.h>
#include <sys/mman.h>

namespace {

void Unmap(void* data, size_t length, void*) { munmap(data, length); }

void Map(const v8::FunctionCallbackInfo<v8::Value>& args) {
  v8::Isolate* isolate = args.GetIsolate();
  if (args.Length() != 2 || !args[0]->IsInt32() || !args[1]->IsNumber() || args[1].As<v8::Number>()->Value() <= 0) {
    isolate->ThrowException(v8::Exception::TypeError(
        v8::String::NewFromUtf8Literal(isolate, "map(fd, length): a descriptor and a positive length")));
    return;
  }
  const int fd = args[0].As<v8::Int32>()->Value();
  const size_t length = static_cast<size_t>(args[1].As<v8::Number>()->Value());
  void* at = mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
  if (at == MAP_FAILED) {
    isolate->ThrowException(v8::Exception::Error(
        v8::String::NewFromUtf8(isolate, strerror(errno)).ToLocalChecked()));
    return;
  }
  std::unique_ptr<v8::BackingStore> store = v8::ArrayBuffer::NewBackingStore(at, length, Unmap, nullptr);
  args.GetReturnValue().Set(v8::ArrayBuffer::New(isolate, std::move(store)));
}

}  // namespace

NODE_MODULE_INIT(/* exports, module, context */) {
  NODE_SET_METHOD(exports, "map", Map);
}
