#pragma once
// How far a file written with atomic_file.hpp or atomic_file_stream.hpp must survive.

namespace yadokari {

enum class Durability {
  // fsync of the file before the rename and of the directory after it: the file survives a crash
  // of the machine (images, MANIFEST, job.json: a restart needs them).
  survives_crash,
  // No fsync: enough for files that die with the process that wrote them (job records).
  process_lifetime,
};

}  // namespace yadokari
