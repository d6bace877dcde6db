#pragma once
// Messages from inside malloc, the restore path or a constructor: no stdio (it may allocate or
// hold locks), just write(2) of one line.
namespace yadokari::memory {

// "yadokari: <a><b><c>\n" on stderr.
void say(const char* a, const char* b = "", const char* c = "", const char* d = "");
[[noreturn]] void fatal(const char* what);

// Small formatting helpers writing into caller-provided buffers (no allocation).
char* format_hex(char* out, const unsigned char* bytes, int n);  // 2n chars + NUL
char* format_u64(char* out, unsigned long long v);               // decimal, 21 bytes suffice
char* format_x64(char* out, unsigned long long v);               // 0x..., 19 bytes suffice

}  // namespace yadokari::memory
