// The interface between cxx_plugin.cpp and the library it loads with dlopen (cxx_plugin_lib.cpp).
#pragma once
#include <stdexcept>
#include <string>

// Thrown inside the library and caught by type in the program (the program does not link the
// library: each has its own copy of the type information, matched by name when the unwinder,
// which must find the library's frames, reaches the catch).
class PluginError : public std::runtime_error {
 public:
  PluginError(const std::string& what, int code) : std::runtime_error(what), code_(code) {}
  int code() const { return code_; }

 private:
  int code_;
};

extern "C" double yk_cxx_plugin_step(int iteration, double value);  // throws PluginError
extern "C" void yk_cxx_plugin_set_rank(int rank);
