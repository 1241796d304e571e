// pc -> file:line:column and function, from the DWARF of the module that
// holds the pc. dladdr finds the module and its load bias (a PIE executable
// or a shared object runs at an address other than the one it was linked
// at); elfutils' libdwfl reads its line table and scopes in-process. Where
// the build found no libdw, `addr2line` (binutils) reads them instead, one
// process per new pc. Every answer is cached: reports name the same few
// sites over and over.
#include "symbolizer.hpp"

#include "cudalab/emu/lab_code_place.hpp"

#include <cxxabi.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#ifndef CUDALAB_EMU_LIBDW
#define CUDALAB_EMU_LIBDW 0
#endif
#if CUDALAB_EMU_LIBDW
#include <dwarf.h>
#include <elfutils/libdwfl.h>
#endif

extern char** environ;

namespace cudalab::emu::detail {

namespace {

std::string hex(std::uintptr_t value) {
  char buffer[24];
  std::snprintf(buffer, sizeof buffer, "0x%jx", static_cast<std::uintmax_t>(value));
  return buffer;
}

const std::string& executable_path() {
  static const std::string path = [] {
    std::array<char, 4096> buffer{};
    const ssize_t length = readlink("/proc/self/exe", buffer.data(), buffer.size() - 1);
    return length > 0 ? std::string(buffer.data(), static_cast<std::size_t>(length))
                      : std::string();
  }();
  return path;
}

// The loaded ELF object (executable or shared library) that holds a pc.
struct Module {
  std::string path;         // the file its debug information is read from
  std::uintptr_t bias = 0;  // run-time address minus link-time address
  std::string symbol;       // the dynamic symbol dladdr names, demangled; may be empty
};

std::optional<Module> module_of(const void* pc) {
  Dl_info info{};
  link_map* map = nullptr;
  if (!dladdr1(pc, &info, reinterpret_cast<void**>(&map), RTLD_DL_LINKMAP) || !map) {
    return std::nullopt;
  }
  Module module;
  // The link map's l_addr is the load bias (0 for a non-PIE executable),
  // which dli_fbase, the mapping's start, is not in general.
  module.bias = map->l_addr;
  // The main program's link map has an empty name.
  module.path = map->l_name && map->l_name[0] ? map->l_name : executable_path();
  if (info.dli_sname) module.symbol = demangle(info.dli_sname);
  return module;
}

SourcePlace unknown_place(const void* pc, const std::optional<Module>& module) {
  const auto address = reinterpret_cast<std::uintptr_t>(pc);
  if (!module) return {"", 0, 0, hex(address), {}};
  if (!module->symbol.empty()) return {"", 0, 0, module->symbol, {}};
  const std::size_t slash = module->path.rfind('/');
  const std::string name =
      slash == std::string::npos ? module->path : module->path.substr(slash + 1);
  return {"", 0, 0, name + "+" + hex(address - module->bias), {}};
}

class FileDescriptor {
 public:
  explicit FileDescriptor(int fd = -1) : fd_(fd) {}
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  ~FileDescriptor() { reset(); }
  int get() const { return fd_; }
  void reset() {
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
  }

 private:
  int fd_;
};

// ---- the ELF symbol table -----------------------------------------------

// The name (demangled) of the function symbol in the ELF file at `path`
// whose code covers the link-time `address`: the full qualified name and
// signature, which DWARF does not always carry (GCC gives members of types
// in an anonymous namespace a plain DW_AT_name only). The static symbol
// table is read where the file has one, else the dynamic one. Empty when
// no function symbol covers the address.
std::string function_symbol(const std::string& path, std::uintptr_t address) {
  FileDescriptor file(open(path.c_str(), O_RDONLY | O_CLOEXEC));
  struct stat status {};
  if (file.get() < 0 || fstat(file.get(), &status) != 0) return {};
  const auto size = static_cast<std::size_t>(status.st_size);
  if (size < sizeof(ElfW(Ehdr))) return {};
  void* mapped = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, file.get(), 0);
  if (mapped == MAP_FAILED) return {};
  const std::unique_ptr<void, std::function<void(void*)>> unmap(
      mapped, [size](void* start) { munmap(start, size); });
  const auto* bytes = static_cast<const unsigned char*>(mapped);
  const unsigned char native_class = sizeof(void*) == 8 ? ELFCLASS64 : ELFCLASS32;
  if (std::memcmp(bytes, ELFMAG, SELFMAG) != 0 || bytes[EI_CLASS] != native_class) return {};

  // Copies a table entry out of the file, or returns false when it lies
  // (partly) outside it.
  const auto read = [&](auto& into, std::size_t offset) {
    if (offset > size || size - offset < sizeof into) return false;
    std::memcpy(&into, bytes + offset, sizeof into);
    return true;
  };
  ElfW(Ehdr) header;
  read(header, 0);
  if (header.e_shentsize != sizeof(ElfW(Shdr))) return {};
  std::vector<ElfW(Shdr)> sections(header.e_shnum);
  for (std::size_t i = 0; i < sections.size(); ++i) {
    if (!read(sections[i], header.e_shoff + i * sizeof(ElfW(Shdr)))) return {};
  }

  for (const ElfW(Word) table_type : {SHT_SYMTAB, SHT_DYNSYM}) {
    const char* best = nullptr;
    int best_rank = -1;  // a global symbol is preferred to a weak, a weak to a local alias
    for (const ElfW(Shdr) & table : sections) {
      if (table.sh_type != table_type || table.sh_link >= sections.size()) continue;
      const ElfW(Shdr)& names = sections[table.sh_link];
      if (names.sh_offset > size || size - names.sh_offset < names.sh_size) continue;
      for (std::size_t at = table.sh_offset;
           at + sizeof(ElfW(Sym)) <= table.sh_offset + table.sh_size; at += sizeof(ElfW(Sym))) {
        ElfW(Sym) symbol;
        if (!read(symbol, at)) break;
        if (ELF64_ST_TYPE(symbol.st_info) != STT_FUNC || symbol.st_shndx == SHN_UNDEF ||
            address < symbol.st_value || address - symbol.st_value >= symbol.st_size ||
            symbol.st_name >= names.sh_size) {
          continue;
        }
        const char* name = reinterpret_cast<const char*>(bytes + names.sh_offset + symbol.st_name);
        if (!std::memchr(name, '\0', names.sh_size - symbol.st_name)) continue;
        const int binding = ELF64_ST_BIND(symbol.st_info);
        const int rank = binding == STB_GLOBAL ? 2 : binding == STB_WEAK ? 1 : 0;
        if (rank > best_rank) {
          best = name;
          best_rank = rank;
        }
      }
    }
    if (best) return demangle(best);
  }
  return {};
}

// ---- addr2line -----------------------------------------------------------

// Runs `addr2line -C -f -i -e path address` and returns what it printed,
// or nothing when it could not be run or failed.
std::optional<std::string> run_addr2line(const std::string& path, std::uintptr_t address) {
  int ends[2];
  if (pipe2(ends, O_CLOEXEC) != 0) return std::nullopt;
  FileDescriptor from_child(ends[0]);
  FileDescriptor to_parent(ends[1]);

  posix_spawn_file_actions_t actions;
  if (posix_spawn_file_actions_init(&actions) != 0) return std::nullopt;
  const std::unique_ptr<posix_spawn_file_actions_t, int (*)(posix_spawn_file_actions_t*)>
      actions_owner(&actions, posix_spawn_file_actions_destroy);
  if (posix_spawn_file_actions_adddup2(&actions, to_parent.get(), STDOUT_FILENO) != 0 ||
      posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0) != 0) {
    return std::nullopt;
  }
  std::string address_text = hex(address);
  std::string module_path = path;
  char program[] = "addr2line";
  char demangle_flag[] = "-C";
  char functions_flag[] = "-f";
  char inlines_flag[] = "-i";
  char executable_flag[] = "-e";
  char* argv[] = {program,         functions_flag,     demangle_flag,       inlines_flag,
                  executable_flag, module_path.data(), address_text.data(), nullptr};
  pid_t child = 0;
  if (posix_spawnp(&child, program, &actions, nullptr, argv, environ) != 0) return std::nullopt;
  to_parent.reset();  // so that reading sees end-of-file when the child exits

  std::string output;
  char buffer[4096];
  for (;;) {
    const ssize_t got = read(from_child.get(), buffer, sizeof buffer);
    if (got > 0) {
      output.append(buffer, static_cast<std::size_t>(got));
    } else if (got == 0 || errno != EINTR) {
      break;
    }
  }
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return std::nullopt;
  return output;
}

// addr2line -f -i prints pairs of lines, innermost inlined function first:
//   function
//   file:line[ (discriminator N)]
// with ?? where it knows nothing.
std::optional<SourcePlace> parse_addr2line(std::string_view output) {
  std::vector<std::string_view> lines;
  while (!output.empty()) {
    const std::size_t end = output.find('\n');
    lines.push_back(output.substr(0, end));
    output.remove_prefix(end == std::string_view::npos ? output.size() : end + 1);
  }
  if (lines.size() < 2) return std::nullopt;

  std::string_view location = lines[1];
  if (const std::size_t note = location.find(" ("); note != std::string_view::npos) {
    location = location.substr(0, note);
  }
  const std::size_t colon = location.rfind(':');
  if (colon == std::string_view::npos) return std::nullopt;
  const std::string_view file = location.substr(0, colon);
  const unsigned line = static_cast<unsigned>(
      std::strtoul(std::string(location.substr(colon + 1)).c_str(), nullptr, 10));
  if (file.empty() || file == "??" || line == 0) return std::nullopt;

  // The last pair is the function whose code holds the pc.
  std::string_view function = lines[(lines.size() - 2) & ~std::size_t{1}];
  if (function == "??") function = {};
  return SourcePlace{std::string(file), line, 0, std::string(function), {}};
}

std::optional<SourcePlace> addr2line_place(const void* pc, const Module& module) {
  const std::uintptr_t address = reinterpret_cast<std::uintptr_t>(pc) - module.bias;
  const auto output = run_addr2line(module.path, address);
  if (!output) return std::nullopt;
  auto place = parse_addr2line(*output);
  if (!place) return std::nullopt;
  if (std::string symbol = function_symbol(module.path, address); !symbol.empty()) {
    place->function = std::move(symbol);
  }
  return place;
}

// ---- libdwfl -------------------------------------------------------------

#if CUDALAB_EMU_LIBDW

struct DwflEnd {
  void operator()(Dwfl* session) const { dwfl_end(session); }
};
using DwflSession = std::unique_ptr<Dwfl, DwflEnd>;

// A module's debug information is its own: the code the emulator reports on
// is built with -g. libdwfl's standard callback would also search separate
// debug files and, where DEBUGINFOD_URLS is set, download them from a
// debuginfod server: seconds to minutes inside a report, for a pc in a
// system library.
int no_separate_debuginfo(Dwfl_Module*, void**, const char*, Dwarf_Addr, const char*, const char*,
                          GElf_Word, char**) {
  return -1;
}

// A libdwfl session that knows one module, placed at its run-time address.
DwflSession open_session(const Module& module) {
  static const Dwfl_Callbacks callbacks = {
      .find_elf = nullptr,  // dwfl_report_elf opens the file itself
      .find_debuginfo = no_separate_debuginfo,
      .section_address = dwfl_offline_section_address,
      .debuginfo_path = nullptr,
  };
  DwflSession session(dwfl_begin(&callbacks));
  if (!session) return nullptr;
  dwfl_report_begin(session.get());
  if (!dwfl_report_elf(session.get(), module.path.c_str(), module.path.c_str(), -1, module.bias,
                       false)) {
    return nullptr;
  }
  if (dwfl_report_end(session.get(), nullptr, nullptr) != 0) return nullptr;
  return session;
}

// The linkage name (demangled) of a function's DIE, following the links
// from a concrete instance to its declaration, else its plain name.
std::string function_name(Dwarf_Die* function) {
  Dwarf_Attribute attribute;
  for (const int name : {DW_AT_linkage_name, DW_AT_MIPS_linkage_name}) {
    if (dwarf_attr_integrate(function, name, &attribute)) {
      if (const char* linkage = dwarf_formstring(&attribute)) return demangle(linkage);
    }
  }
  if (dwarf_attr_integrate(function, DW_AT_name, &attribute)) {
    if (const char* name = dwarf_formstring(&attribute)) return name;
  }
  return {};
}

// The function whose machine code holds pc, by its ELF symbol (see
// function_symbol for why not DWARF's name first). Where no symbol covers
// pc, the innermost DW_TAG_subprogram among the scopes around it (inlined
// code sits in DW_TAG_inlined_subroutine scopes inside it).
std::string containing_function(Dwfl_Module* module, Dwarf_Addr pc) {
  if (const char* symbol = dwfl_module_addrname(module, pc)) return demangle(symbol);
  Dwarf_Addr bias = 0;
  if (Dwarf_Die* unit = dwfl_module_addrdie(module, pc, &bias)) {
    Dwarf_Die* scopes = nullptr;
    const int count = dwarf_getscopes(unit, pc - bias, &scopes);
    const std::unique_ptr<Dwarf_Die, decltype(&std::free)> owner(scopes, std::free);
    for (int i = 0; i < count; ++i) {
      if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram) return function_name(&scopes[i]);
    }
  }
  return {};
}

// For code inlined into its caller: the lines that called it, innermost
// first (DW_AT_call_file and DW_AT_call_line of each inlined scope).
std::vector<std::pair<std::string, unsigned>> inline_call_sites(Dwfl_Module* module,
                                                                Dwarf_Addr pc) {
  std::vector<std::pair<std::string, unsigned>> sites;
  Dwarf_Addr bias = 0;
  Dwarf_Die* unit = dwfl_module_addrdie(module, pc, &bias);
  if (unit == nullptr) return sites;
  Dwarf_Files* files = nullptr;
  std::size_t file_count = 0;
  if (dwarf_getsrcfiles(unit, &files, &file_count) != 0) return sites;
  Dwarf_Die* scopes = nullptr;
  const int count = dwarf_getscopes(unit, pc - bias, &scopes);
  const std::unique_ptr<Dwarf_Die, decltype(&std::free)> owner(scopes, std::free);
  for (int i = 0; i < count; ++i) {
    if (dwarf_tag(&scopes[i]) != DW_TAG_inlined_subroutine) continue;
    Dwarf_Attribute attribute;
    Dwarf_Word file = 0, line = 0;
    if (!dwarf_attr(&scopes[i], DW_AT_call_file, &attribute) ||
        dwarf_formudata(&attribute, &file) != 0 || file >= file_count) {
      continue;
    }
    if (dwarf_attr(&scopes[i], DW_AT_call_line, &attribute)) dwarf_formudata(&attribute, &line);
    if (const char* name = dwarf_filesrc(files, file, nullptr, nullptr)) {
      sites.emplace_back(name, static_cast<unsigned>(line));
    }
  }
  return sites;
}

std::optional<SourcePlace> libdw_place(Dwfl* session, const void* pc) {
  const auto address = static_cast<Dwarf_Addr>(reinterpret_cast<std::uintptr_t>(pc));
  Dwfl_Module* module = dwfl_addrmodule(session, address);
  if (!module) return std::nullopt;
  SourcePlace place;
  if (Dwfl_Line* row = dwfl_module_getsrc(module, address)) {
    int line = 0;
    int column = 0;
    if (const char* file = dwfl_lineinfo(row, nullptr, &line, &column, nullptr, nullptr)) {
      place.file = file;
      place.line = line > 0 ? static_cast<unsigned>(line) : 0;
      place.column = column > 0 ? static_cast<unsigned>(column) : 0;
    }
  }
  place.function = containing_function(module, address);
  if (place.file.empty() && place.function.empty()) return std::nullopt;
  place.inlined_at = inline_call_sites(module, address);
  return place;
}

#endif  // CUDALAB_EMU_LIBDW

// ---- the cache -----------------------------------------------------------

class Symbolizer {
 public:
  SourcePlace place_of(const void* pc) {
    const std::lock_guard lock(mutex_);
    auto known = places_.find(pc);
    if (known == places_.end()) {
      SourcePlace place = look_up(pc);
      if (!place.file.empty()) place.file = original_of(place.file);
      for (auto& site : place.inlined_at) site.first = original_of(site.first);
      // Code a lab's own line called, inlined there (a harness helper a
      // student's kernel calls): reports name the student's line.
      if (!is_lab_code_file(place.file)) {
        for (const auto& [file, line] : place.inlined_at) {
          if (is_lab_code_file(file)) {
            place.file = file;
            place.line = line;
            place.column = 0;
            break;
          }
        }
      }
      known = places_.emplace(pc, std::move(place)).first;
    }
    return known->second;
  }

 private:
  SourcePlace look_up(const void* pc) {
    const std::optional<Module> module = module_of(pc);
    if (!module) return unknown_place(pc, module);
#if CUDALAB_EMU_LIBDW
    auto [session, opened] = sessions_.try_emplace({module->path, module->bias});
    if (opened) session->second = open_session(*module);
    if (session->second) {
      if (auto place = libdw_place(session->second.get(), pc)) return *std::move(place);
    }
#else
    if (auto place = addr2line_place(pc, *module)) return *std::move(place);
#endif
    return unknown_place(pc, module);
  }

  const std::string& original_of(const std::string& file) {
    auto [known, inserted] = originals_.try_emplace(file);
    if (inserted) known->second = original_of_rewritten(file);
    return known->second;
  }

  std::mutex mutex_;  // libdwfl sessions are not thread-safe either
  std::unordered_map<const void*, SourcePlace> places_;
  std::unordered_map<std::string, std::string> originals_;
#if CUDALAB_EMU_LIBDW
  // One session per module (path, load bias), null where it could not be
  // opened; opened on the first pc in the module.
  std::map<std::pair<std::string, std::uintptr_t>, DwflSession> sessions_;
#endif
};

Symbolizer& symbolizer() {
  // Never destroyed: reports may be symbolised from other objects'
  // destructors or atexit handlers during exit.
  static Symbolizer* const instance = new Symbolizer;
  return *instance;
}

}  // namespace

std::string demangle(const char* symbol) {
  int status = 0;
  char* readable = abi::__cxa_demangle(symbol, nullptr, nullptr, &status);
  if (status != 0 || !readable) return symbol;
  std::string out = readable;
  std::free(readable);
  return out;
}

SourcePlace symbolize(const void* pc) noexcept {
  try {
    return symbolizer().place_of(pc);
  } catch (...) {
    return {};
  }
}

std::string original_of_rewritten(const std::string& file) {
  std::ifstream in(file);
  std::string first;
  if (!std::getline(in, first)) return file;
  static const std::string prefix = "#line 1 \"";
  if (first.rfind(prefix, 0) != 0 || first.size() < prefix.size() + 2 || first.back() != '"') {
    return file;
  }
  return first.substr(prefix.size(), first.size() - prefix.size() - 1);
}

bool symbolizer_uses_libdw() noexcept { return CUDALAB_EMU_LIBDW != 0; }

SourcePlace symbolize_with_addr2line(const void* pc) noexcept {
  try {
    const std::optional<Module> module = module_of(pc);
    if (!module) return unknown_place(pc, module);
    if (auto place = addr2line_place(pc, *module)) return *std::move(place);
    return unknown_place(pc, module);
  } catch (...) {
    return {};
  }
}

}  // namespace cudalab::emu::detail
