// jit.cpp — in-process C compiler for generated kernels (see jit.h).
//
// The project's only C++ file. Pipeline:
//   C source --Clang (cc1 invocation, EmitLLVMOnlyAction)--> LLVM IR
//            --PassBuilder -O3 for the host TargetMachine (with glibc's libmvec
//              as the vectorizer's math library when it loads)--> optimized IR
//            --codegen--> ELF object in memory --> disk cache
//            --ORC LLJIT (libm, libmvec and the process as symbol sources; the
//              module's sections in one reservation, Slab)--> addresses.
// A cache hit starts at the objects and skips Clang and the optimizer.
// A module of several kernels is compiled on several threads: its external
// functions are split into groups of about equal size, and each thread parses
// the source in its own LLVMContext, drops the other groups' bodies and makes
// an object of its own (Parallel compilation, below); the cache entry holds
// them all.
#include "backends/c/jit.h"

extern "C" {
#include "support/cache.h"
#include "support/util.h"
}

#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/DiagnosticOptions.h>
#include <clang/Basic/Version.h>
#include <clang/CodeGen/CodeGenAction.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/CompilerInvocation.h>
#include <clang/Frontend/TextDiagnosticPrinter.h>
#include <clang/Lex/PreprocessorOptions.h>
#include <llvm/ADT/StringMap.h>
#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/RTDyldObjectLinkingLayer.h>
#include <llvm/ExecutionEngine/SectionMemoryManager.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Object/ObjectFile.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Host.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include <dlfcn.h>
#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

using namespace llvm;

// Bump when the pipeline changes in a way that changes the objects it makes.
static const char JIT_REVISION[] = "hdgc-jit-5";

// The pages of one module: one reservation of address space, sized by
// RuntimeDyld before it loads the object and handed out in order, so that code
// and tables stay within the 2 GB that the small code model's 32-bit
// PC-relative offsets reach. LLVM's default mapper places each
// section group where mmap finds room; in a fragmented address space (a CUDA
// context on a large GPU) code and tables landed more than 2 GB apart, and
// RuntimeDyld truncated the offsets without an error (assert-only), so the
// kernels read other memory (tests/test_jit_far.c). Freed with the module.
class Slab final : public SectionMemoryManager::MemoryMapper {
public:
    ~Slab() override
    {
        if (base) munmap(base, reserve);
    }
    // Room for sections of these sizes: SectionMemoryManager rounds each to pages
    // with its alignment, and RuntimeDyld's sizes include the stubs.
    void size_for(size_t code, size_t rodata, size_t rwdata, size_t align)
    {
        if (!base) reserve = std::max(reserve, 2 * (code + rodata + rwdata) + 6 * align + (size_t(1) << 20));
    }
    // Several objects share the reservation, which is made for the first: at least n bytes.
    void at_least(size_t n)
    {
        if (!base) reserve = std::max(reserve, n);
    }
    sys::MemoryBlock allocateMappedMemory(SectionMemoryManager::AllocationPurpose, size_t n,
                                          const sys::MemoryBlock *const, unsigned flags,
                                          std::error_code &ec) override
    {
        ec = std::error_code();
        if (!base) {
            if (!reserve) reserve = size_t(64) << 20;
            void *p = mmap(nullptr, reserve, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
            if (p == MAP_FAILED) {
                ec = std::error_code(errno, std::generic_category());
                return sys::MemoryBlock();
            }
            base = static_cast<char *>(p);
        }
        size_t page = size_t(sysconf(_SC_PAGESIZE));
        n = (n + page - 1) / page * page;
        if (n > reserve - used) {
            ec = std::make_error_code(std::errc::not_enough_memory);
            return sys::MemoryBlock();
        }
        sys::MemoryBlock b(base + used, n);
        if ((ec = sys::Memory::protectMappedMemory(b, flags))) return sys::MemoryBlock();
        used += n;
        return b;
    }
    std::error_code protectMappedMemory(const sys::MemoryBlock &b, unsigned flags) override
    {
        return sys::Memory::protectMappedMemory(b, flags);
    }
    std::error_code releaseMappedMemory(sys::MemoryBlock &b) override
    {
        if (b.base()) madvise(b.base(), b.allocatedSize(), MADV_DONTNEED);
        b = sys::MemoryBlock();
        return std::error_code();
    }

private:
    char *base = nullptr;
    size_t reserve = 0, used = 0;
};

// LLVM's section memory manager with its pages from a Slab, sized up front.
class SlabManager final : public SectionMemoryManager {
public:
    explicit SlabManager(Slab *s) : SectionMemoryManager(s), slab(s) {}
    bool needsToReserveAllocationSpace() override { return true; }
    void reserveAllocationSpace(uintptr_t code, uint32_t code_align, uintptr_t ro, uint32_t ro_align,
                                uintptr_t rw, uint32_t rw_align) override
    {
        slab->size_for(code, ro, rw, std::max({code_align, ro_align, rw_align, 16u}));
    }

private:
    Slab *slab;
};

struct hdg_jit {
    Slab slab; // outlives lljit (members are destroyed in reverse order)
    std::unique_ptr<orc::LLJIT> lljit;
    std::string reported; // errors ORC reports outside of a call's result
};

// ---- the host: target, CPU, Clang resource directory (found once) ---------

namespace {
struct Host {
    bool ok = false;
    std::string error;
    std::string triple, cpu, version, resource_dir, features_key;
    std::vector<std::string> features; // "+avx2", "-avx512f", ... sorted
    std::vector<std::string> sys_includes;
    bool mvec = false; // glibc's libmvec loaded: vectorised exp, sin, cos, log, pow
    std::shared_ptr<MCSubtargetInfo> cpu_info; // HDGC_JIT_CPU: that CPU's features
};
} // namespace

static bool has_stddef(const std::string &dir)
{
    return !dir.empty() && sys::fs::exists(dir + "/include/stddef.h");
}

// HDGC_CLANG_RESOURCE_DIR, then the directory CMake found, then the
// layouts LLVM packages use (lib/clang/<full version> or <major>).
static std::string find_resource_dir()
{
    std::vector<std::string> tries;
    if (const char *env = std::getenv("HDGC_CLANG_RESOURCE_DIR")) tries.push_back(env);
    tries.push_back(HDG_CLANG_RESOURCE_DIR);
    tries.push_back(HDG_LLVM_LIBRARY_DIR "/clang/" CLANG_VERSION_STRING);
    tries.push_back(HDG_LLVM_LIBRARY_DIR "/clang/" + std::to_string(CLANG_VERSION_MAJOR));
    for (const std::string &dir : tries)
        if (has_stddef(dir)) return dir;
    return "";
}

// Loops with a constant trip count below LLVM's "tiny" threshold (16) are
// vectorized only with their tail folded into masked loads and stores; the
// generated kernels are full of 10-, 13- and 15-iteration loops, and on AMD
// (znver3) a masked store (vmaskmovpd) is microcoded and many times slower than
// a plain one: 62% of the poisson k = 3 local kernel went to one such loop.
// From 4 iterations on, a vector body with a scalar remainder is used instead.
static void set_llvm_options()
{
    const char *args[] = {"hdgc", "-vectorizer-min-trip-count=4"};
    cl::ParseCommandLineOptions(2, args, "", &errs());
}

// HDGC_JIT_CPU: h.cpu_info for that CPU, or why it cannot be used here: a name LLVM does
// not know, or a feature the host lacks (its code would stop on an illegal instruction).
static std::string other_cpu(Host &h, const Target &target, const std::vector<std::string> &host_features)
{
    if (!std::unique_ptr<MCSubtargetInfo>(target.createMCSubtargetInfo(h.triple, "", ""))->isCPUStringValid(h.cpu))
        return "HDGC_JIT_CPU=" + h.cpu + ": not a CPU LLVM knows (e.g. haswell, x86-64-v3, skylake-avx512, znver3)";
    h.cpu_info.reset(target.createMCSubtargetInfo(h.triple, h.cpu, ""));
    std::string missing;
    for (const std::string &f : host_features)
        if (f[0] == '-' && h.cpu_info->checkFeatures("+" + f.substr(1)))
            missing += (missing.empty() ? "" : ", ") + f.substr(1);
    if (!missing.empty())
        return "HDGC_JIT_CPU=" + h.cpu + ": this host lacks its " + missing + " (its code would not run here)";
    return "";
}

static Host make_host()
{
    Host h;
    set_llvm_options();
    InitializeNativeTarget();
    InitializeNativeTargetAsmPrinter();
    InitializeNativeTargetAsmParser();
    h.triple = sys::getProcessTriple();
    h.cpu = sys::getHostCPUName().str();
    StringMap<bool> feats;
    if (sys::getHostCPUFeatures(feats))
        for (const auto &f : feats) h.features.push_back((f.second ? "+" : "-") + f.first().str());
    std::sort(h.features.begin(), h.features.end());
    // HDGC_JIT_CPU=name: code for that CPU and its own features instead of the host's (to
    // measure, on this host, the code another machine would run; other_cpu refuses a CPU
    // with features the host lacks). The cache key below has the name, so the objects stay apart.
    const char *jit_cpu = std::getenv("HDGC_JIT_CPU");
    const std::vector<std::string> host_features = h.features;
    if (jit_cpu && *jit_cpu) h.cpu = jit_cpu, h.features.clear();
    Triple tt(h.triple);
    // The cache key: the same CPU name with other features (a VM or valgrind masking
    // AVX-512) must not load an object that uses them.
    h.version = "clang " CLANG_VERSION_STRING " " + tt.getArchName().str() + " " + h.cpu;
    for (const std::string &f : h.features) h.version += " " + f;

    // Only the C library's headers (math.h, stdint.h): Debian multiarch, then /usr/include.
    std::string multiarch = "/usr/include/" + tt.getArchName().str() + "-linux-gnu";
    for (const std::string &dir : {multiarch, std::string("/usr/include")})
        if (sys::fs::is_directory(dir)) h.sys_includes.push_back(dir);

    std::string e;
    h.resource_dir = find_resource_dir();
    const Target *target = TargetRegistry::lookupTarget(h.triple, e);
    if (!target)
        h.error = "LLVM cannot generate code for " + h.triple + ": " + e;
    else if (jit_cpu && *jit_cpu)
        h.error = other_cpu(h, *target, host_features);
    if (h.error.empty() && h.resource_dir.empty())
        h.error = "Clang resource directory not found (tried " HDG_CLANG_RESOURCE_DIR
                  "); set HDGC_CLANG_RESOURCE_DIR";
    h.ok = h.error.empty();
    // glibc's vector math (x86-64): the vectorizer may then call exp, sin, cos, log and pow
    // 2 or 4 points at a time (a kernel's coefficient loops: ir/lower_hdg_atoms.c splits them out).
    // Its functions are within 4 ulp, libm's within 1. HDGC_NO_MVEC=1: scalar calls only.
    if (tt.getArch() == Triple::x86_64 && tt.isOSLinux() && !hdg_env_flag("HDGC_NO_MVEC"))
        h.mvec = dlopen("libmvec.so.1", RTLD_NOW | RTLD_GLOBAL) != nullptr;
    return h;
}

static const Host &host()
{
    static const Host h = make_host(); // thread-safe one-time initialization
    return h;
}

// ---- C -> LLVM IR (Clang) -------------------------------------------------

// C11, or with cxx C++17 without exceptions (cc1's default), RTTI and
// thread-safe statics (which would need the C++ runtime).
static std::vector<std::string> cc1_args(const std::string &file, int opt_level, bool cxx)
{
    const Host &h = host();
    std::vector<std::string> a = {
        "-triple", h.triple, "-target-cpu", h.cpu,
        cxx ? "-std=c++17" : "-std=c11", "-O" + std::to_string(opt_level), "-disable-llvm-passes",
        "-ffp-contract=on", "-mrelocation-model", "pic", "-pic-level", "2",
        "-fgnuc-version=4.2.1", "-ferror-limit", "10"};
    if (cxx)
        a.insert(a.end(), {"-fno-rtti", "-fno-threadsafe-statics"});
    else
        a.push_back("-Werror=implicit-function-declaration");
    a.insert(a.end(), {"-resource-dir", h.resource_dir, "-internal-isystem", h.resource_dir + "/include"});
    for (const std::string &f : h.features) a.insert(a.end(), {"-target-feature", f});
    for (const std::string &d : h.sys_includes) a.insert(a.end(), {"-internal-externc-isystem", d});
    a.insert(a.end(), {"-main-file-name", file, "-x", cxx ? "c++" : "c", file});
    return a;
}

// Parses source; on failure returns null and leaves Clang's diagnostics in diag.
static std::unique_ptr<Module> c_to_ir(const char *source, const std::string &file,
                                       int opt_level, bool cxx, LLVMContext &ctx, std::string &diag)
{
    raw_string_ostream out(diag);
    std::vector<std::string> args = cc1_args(file, opt_level, cxx);
    std::vector<const char *> argv;
    for (const std::string &s : args) argv.push_back(s.c_str());

    auto inv = std::make_shared<clang::CompilerInvocation>();
    {
        IntrusiveRefCntPtr<clang::DiagnosticOptions> opts = new clang::DiagnosticOptions();
        clang::TextDiagnosticPrinter printer(out, opts.get());
        clang::DiagnosticsEngine diags(new clang::DiagnosticIDs(), opts, &printer, false);
        if (!clang::CompilerInvocation::CreateFromArgs(*inv, argv, diags)) return nullptr;
    }
    inv->getPreprocessorOpts().addRemappedFile(
        file, MemoryBuffer::getMemBufferCopy(source, file).release());

    clang::CompilerInstance ci;
    ci.setInvocation(inv);
    ci.createDiagnostics(new clang::TextDiagnosticPrinter(out, &ci.getDiagnosticOpts()), true);
    ci.setVerboseOutputStream(out); // "N errors generated." goes here, not to stderr
    clang::EmitLLVMOnlyAction action(&ctx);
    bool ok = ci.ExecuteAction(action);
    std::unique_ptr<Module> mod = action.takeModule();
    return ok ? std::move(mod) : nullptr;
}

// ---- IR -> optimized IR -> object ----------------------------------------

static std::unique_ptr<TargetMachine> host_machine(int opt_level)
{
    const Host &h = host();
    std::string e, feats;
    for (const std::string &f : h.features) feats += (feats.empty() ? "" : ",") + f;
    const Target *t = TargetRegistry::lookupTarget(h.triple, e);
    static const CodeGenOpt::Level levels[] = {CodeGenOpt::None, CodeGenOpt::Less,
                                               CodeGenOpt::Default, CodeGenOpt::Aggressive};
    TargetOptions opts; // IEEE: no unsafe math; fuses only fmuladd (contract=on)
    return std::unique_ptr<TargetMachine>(t->createTargetMachine(
        h.triple, h.cpu, feats, opts, Reloc::PIC_, CodeModel::Small, levels[opt_level]));
}

static void optimize(Module &m, TargetMachine &tm, int opt_level)
{
    // Declared in this order so they are destroyed in reverse.
    LoopAnalysisManager lam;
    FunctionAnalysisManager fam;
    CGSCCAnalysisManager cgam;
    ModuleAnalysisManager mam;
    PipelineTuningOptions pto;
    pto.LoopVectorization = pto.SLPVectorization = opt_level >= 2;
    // No partial/runtime unrolling (clang -fno-unroll-loops): generated kernels
    // have many constant-trip loops, and unrolling them all costs 5-6x in compile
    // time (2.9 s vs 0.48 s for poisson k = 3) for no measurable kernel speed.
    pto.LoopUnrolling = false;
    PassBuilder pb(&tm, pto);
    TargetLibraryInfoImpl tlii(Triple(m.getTargetTriple()));
    if (host().mvec) tlii.addVectorizableFunctionsFromVecLib(TargetLibraryInfoImpl::LIBMVEC_X86);
    fam.registerPass([&] { return TargetLibraryAnalysis(tlii); }); // before the defaults: it wins
    pb.registerModuleAnalyses(mam);
    pb.registerCGSCCAnalyses(cgam);
    pb.registerFunctionAnalyses(fam);
    pb.registerLoopAnalyses(lam);
    pb.crossRegisterProxies(lam, fam, cgam, mam);
    static const OptimizationLevel *levels[] = {&OptimizationLevel::O0, &OptimizationLevel::O1,
                                                &OptimizationLevel::O2, &OptimizationLevel::O3};
    ModulePassManager mpm = opt_level == 0
                                ? pb.buildO0DefaultPipeline(OptimizationLevel::O0)
                                : pb.buildPerModuleDefaultPipeline(*levels[opt_level]);
    mpm.run(m, mam);
}

static bool emit_object(Module &m, TargetMachine &tm, SmallVectorImpl<char> &obj)
{
    legacy::PassManager pm;
    raw_svector_ostream os(obj);
    if (tm.addPassesToEmitFile(pm, os, nullptr, CGFT_ObjectFile)) return false;
    pm.run(m);
    return true;
}

typedef SmallVector<char, 0> Object;

// Optimizes m (parsed from file in its own context) and makes its object.
static hdg_status optimize_and_emit(Module &m, const std::string &file, int opt_level, Object &obj,
                                    hdg_error *err)
{
    std::unique_ptr<TargetMachine> tm = host_machine(opt_level);
    m.setDataLayout(tm->createDataLayout());
    optimize(m, *tm, opt_level);
    if (!emit_object(m, *tm, obj))
        return hdg_fail(err, HDG_EINTERNAL, "%s: LLVM cannot emit an object file for %s",
                        file.c_str(), host().triple.c_str());
    return HDG_OK;
}

static hdg_status parse_failed(const std::string &file, bool cxx, const std::string &diag, hdg_error *err)
{
    return hdg_fail(err, HDG_ECOMPILE, "%s: generated %s failed to compile (a bug in hdgc):\n%s",
                    file.c_str(), cxx ? "C++" : "C", diag.c_str());
}

// ---- parallel compilation ----------------------------------------------------

// The functions m defines with external linkage (the kernels), each with its
// size: its instructions and those of the internal functions it calls,
// directly or not (the helpers it will inline).
static std::vector<std::pair<std::string, size_t>> external_sizes(Module &m)
{
    std::unordered_map<const Function *, size_t> own;
    for (Function &f : m) own[&f] = f.isDeclaration() ? 0 : f.getInstructionCount();
    std::vector<std::pair<std::string, size_t>> out;
    for (Function &f : m) {
        if (f.isDeclaration() || !f.hasExternalLinkage()) continue;
        std::vector<const Function *> todo{&f}, seen{&f};
        size_t n = 0;
        while (!todo.empty()) {
            const Function *g = todo.back();
            todo.pop_back();
            n += own[g];
            for (const BasicBlock &bb : *g)
                for (const Instruction &i : bb)
                    if (const auto *call = dyn_cast<CallBase>(&i)) {
                        const Function *c = call->getCalledFunction();
                        if (c && !c->isDeclaration() && c->hasLocalLinkage() &&
                            std::find(seen.begin(), seen.end(), c) == seen.end())
                            seen.push_back(c), todo.push_back(c);
                    }
        }
        out.emplace_back(f.getName().str(), n);
    }
    return out;
}

// The external functions in at most `groups` groups of about equal size (the
// largest first, each to the smallest group so far). One group when the module
// has mutable data: each object would get its own copy.
static std::vector<std::vector<std::string>> split_kernels(Module &m, unsigned groups)
{
    std::vector<std::pair<std::string, size_t>> k = external_sizes(m);
    for (const GlobalVariable &gv : m.globals())
        if (!gv.isConstant()) groups = 1;
    std::stable_sort(k.begin(), k.end(), [](const auto &a, const auto &b) { return a.second > b.second; });
    groups = std::max(1u, std::min<unsigned>(groups, (unsigned)k.size()));
    std::vector<std::vector<std::string>> g(groups);
    std::vector<size_t> total(groups, 0);
    for (const auto &f : k) {
        size_t i = std::min_element(total.begin(), total.end()) - total.begin();
        g[i].push_back(f.first);
        total[i] += f.second;
    }
    return g;
}

// Leaves in m only the bodies of the external functions named in keep (the
// optimizer then drops the helpers and tables the others used).
static void keep_only(Module &m, const std::vector<std::string> &keep)
{
    for (Function &f : m)
        if (!f.isDeclaration() && f.hasExternalLinkage() &&
            std::find(keep.begin(), keep.end(), f.getName().str()) == keep.end())
            f.deleteBody();
}

// Every thread parses the whole source: past this size the parse, done once per
// thread, costs more than the parallel optimisation saves (poisson, 2 cores: k = 8,
// 2.7 MB, 3.3 -> 2.1 s; k = 10, 5.4 MB, 4.1 -> 3.1 s; k = 12, 9.8 MB, 4.1 -> 4.7 s;
// k = 20, 58 MB of tables, 15 -> 23 s), so such a module is compiled on one thread.
static const size_t SPLIT_MAX_SOURCE = size_t(6) << 20;

// One object per group of kernels, compiled on up to `threads` threads: the
// first group in the calling thread from the module parsed there, each other
// group in a thread of its own that parses the source again in its own context
// (LLVM contexts are not shared between threads).
static hdg_status compile_objects(const char *source, const std::string &file, int opt_level, bool cxx,
                                  unsigned threads, std::vector<Object> &objs, hdg_error *err)
{
    LLVMContext ctx;
    std::string diag;
    std::unique_ptr<Module> m = c_to_ir(source, file, opt_level, cxx, ctx, diag);
    if (!m) return parse_failed(file, cxx, diag, err);
    if (std::strlen(source) > SPLIT_MAX_SOURCE) threads = 1;
    std::vector<std::vector<std::string>> groups = split_kernels(*m, threads);
    size_t n = groups.size();
    objs.assign(n, Object());
    std::vector<hdg_error> errs(n);
    std::vector<hdg_status> st(n, HDG_OK);
    auto group = [&](size_t g) {
        LLVMContext c;
        std::string d;
        std::unique_ptr<Module> mg = c_to_ir(source, file, opt_level, cxx, c, d);
        if (!mg) {
            st[g] = parse_failed(file, cxx, d, &errs[g]);
            return;
        }
        keep_only(*mg, groups[g]);
        st[g] = optimize_and_emit(*mg, file, opt_level, objs[g], &errs[g]);
    };
    // pthreads rather than std::thread: built without exceptions (as LLVM is), a
    // std::thread that cannot start aborts; a group whose thread cannot start (out of
    // threads: ulimit -u, a container's pids limit) is compiled in this thread.
    struct job {
        decltype(group) *fn;
        size_t g;
    };
    std::vector<job> jobs(n);
    std::vector<pthread_t> tid(n);
    std::vector<char> started(n, 0);
    for (size_t g = 1; g < n; g++) {
        jobs[g] = {&group, g};
        started[g] = pthread_create(&tid[g], nullptr, [](void *p) -> void * {
            job *jb = static_cast<job *>(p);
            (*jb->fn)(jb->g);
            return nullptr;
        }, &jobs[g]) == 0;
    }
    if (n > 1) keep_only(*m, groups[0]);
    st[0] = optimize_and_emit(*m, file, opt_level, objs[0], &errs[0]);
    for (size_t g = 1; g < n; g++)
        if (!started[g]) group(g);
    for (size_t g = 1; g < n; g++)
        if (started[g]) pthread_join(tid[g], nullptr);
    for (size_t g = 0; g < n; g++)
        if (st[g] != HDG_OK) {
            *err = errs[g];
            return st[g];
        }
    return HDG_OK;
}

// The cache entry of several objects: "HDGCOBJS", the count (u32, then 4 zero
// bytes), each object's size (u64), then the objects.
static const char OBJS_MAGIC[8] = {'H', 'D', 'G', 'C', 'O', 'B', 'J', 'S'};

static std::string pack_objects(const std::vector<Object> &objs)
{
    std::string out(OBJS_MAGIC, 8);
    uint32_t count[2] = {(uint32_t)objs.size(), 0};
    out.append((const char *)count, sizeof count);
    for (const Object &o : objs) {
        uint64_t n = o.size();
        out.append((const char *)&n, sizeof n);
    }
    for (const Object &o : objs) out.append(o.data(), o.size());
    return out;
}

// The objects of an entry, or false when it is not one pack_objects made.
static bool unpack_objects(const char *p, size_t n, std::vector<StringRef> &objs)
{
    objs.clear();
    if (n < 16 || std::memcmp(p, OBJS_MAGIC, 8)) return false;
    uint32_t count;
    std::memcpy(&count, p + 8, 4);
    if (count == 0 || count > (n - 16) / 8) return false;
    size_t at = 16 + (size_t)count * 8;
    for (uint32_t i = 0; i < count; i++) {
        uint64_t len;
        std::memcpy(&len, p + 16 + 8 * (size_t)i, 8);
        if (len == 0 || len > n - at) return false;
        objs.emplace_back(p + at, (size_t)len);
        at += (size_t)len;
    }
    return at == n;
}

// ---- object -> process (ORC) ----------------------------------------------

// Names of the symbols an object defines and exports.
static std::vector<std::string> defined_symbols(MemoryBufferRef buf)
{
    std::vector<std::string> names;
    auto obj = object::ObjectFile::createObjectFile(buf);
    if (!obj) {
        consumeError(obj.takeError());
        return names;
    }
    for (const object::SymbolRef &sym : (*obj)->symbols()) {
        Expected<uint32_t> flags = sym.getFlags();
        Expected<StringRef> name = sym.getName();
        if (flags && name && (*flags & object::SymbolRef::SF_Global) &&
            !(*flags & object::SymbolRef::SF_Undefined) && !name->empty())
            names.push_back(name->str());
        if (!flags) consumeError(flags.takeError());
        if (!name) consumeError(name.takeError());
    }
    return names;
}

// ORC's own message for e, or the more telling one it reported on the side
// (for a missing symbol: "Symbols not found: [ name ]").
static std::string take_message(hdg_jit *j, Error e)
{
    std::string msg = toString(std::move(e));
    return j->reported.empty() ? msg : j->reported;
}

// Creates the LLJIT of j: a "main" library for the module whose link order
// falls back to a "<process>" library that resolves from libm and the process.
static Error make_lljit(hdg_jit *j)
{
    const Host &h = host();
    orc::JITTargetMachineBuilder jtmb{Triple(h.triple)};
    jtmb.setCPU(h.cpu).addFeatures(h.features).setRelocationModel(Reloc::PIC_);
    jtmb.setCodeModel(CodeModel::Small);
    // LLJIT's default layer on ELF, with the module's pages from its Slab.
    auto layer = [j](orc::ExecutionSession &es, const Triple &) -> Expected<std::unique_ptr<orc::ObjectLayer>> {
        Slab *slab = &j->slab;
        return std::make_unique<orc::RTDyldObjectLinkingLayer>(
            es, [slab]() { return std::make_unique<SlabManager>(slab); });
    };
    auto jit = orc::LLJITBuilder()
                   .setJITTargetMachineBuilder(std::move(jtmb))
                   .setObjectLinkingLayerCreator(layer)
                   .create();
    if (!jit) return jit.takeError();
    j->lljit = std::move(*jit);
    orc::ExecutionSession &es = j->lljit->getExecutionSession();
    es.setErrorReporter([j](Error e) {
        j->reported += (j->reported.empty() ? "" : "; ") + toString(std::move(e));
    });
    char prefix = j->lljit->getDataLayout().getGlobalPrefix();
    orc::JITDylib &process = es.createBareJITDylib("<process>");
    for (const char *lib : {"libm.so.6", h.mvec ? "libmvec.so.1" : nullptr}) {
        if (!lib) continue;
        auto gen = orc::DynamicLibrarySearchGenerator::Load(lib, prefix);
        if (gen)
            process.addGenerator(std::move(*gen));
        else
            consumeError(gen.takeError()); // the process generator may still find it
    }
    auto self = orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(prefix);
    if (!self) return self.takeError();
    process.addGenerator(std::move(*self));
    j->lljit->getMainJITDylib().addToLinkOrder(process);
    return Error::success();
}

// Adds the objects and links them now (by looking up what they define), so that
// an unresolved symbol is reported here and not at the first hdg_jit_lookup.
static hdg_status load_objects(hdg_jit *j, const std::vector<StringRef> &objs, const std::string &file,
                               hdg_error *err)
{
    if (Error e = make_lljit(j))
        return hdg_fail(err, HDG_EINTERNAL, "%s: cannot start the JIT: %s", file.c_str(),
                        toString(std::move(e)).c_str());
    size_t bytes = 0;
    for (StringRef o : objs) bytes += o.size();
    j->slab.at_least(2 * bytes + (objs.size() + 1) * (size_t(1) << 20));   /* sections fit in their objects */
    std::vector<std::string> names;
    for (StringRef o : objs) {
        std::unique_ptr<MemoryBuffer> buf = MemoryBuffer::getMemBufferCopy(o, file);
        std::vector<std::string> defined = defined_symbols(buf->getMemBufferRef());
        names.insert(names.end(), defined.begin(), defined.end());
        if (Error e = j->lljit->addObjectFile(std::move(buf)))
            return hdg_fail(err, HDG_ECOMPILE, "%s: cannot load the object: %s", file.c_str(),
                            take_message(j, std::move(e)).c_str());
    }
    for (const std::string &name : names) {
        auto sym = j->lljit->lookupLinkerMangled(name);
        if (!sym)
            return hdg_fail(err, HDG_ECOMPILE,
                            "%s: cannot link the compiled module: %s "
                            "(defined neither in the module nor in libm or the process)",
                            file.c_str(), take_message(j, sym.takeError()).c_str());
    }
    return HDG_OK;
}

// ---- the C interface --------------------------------------------------------

static std::string flags_key(int opt_level, bool cxx)
{
    std::string k = std::string(JIT_REVISION) + " -O" + std::to_string(opt_level);
    for (const std::string &f : host().features) k += " " + f;
    if (host().mvec) k += " libmvec";
    if (cxx) k += " -x c++ -std=c++17 -fno-rtti -fno-threadsafe-statics";
    return k;
}

static void set_warning(hdg_jit_stats *stats, const char *w)
{
    if (!stats || !w || !*w || stats->warning[0]) return;
    size_t n = strnlen(w, sizeof stats->warning - 1);
    std::memcpy(stats->warning, w, n);
    stats->warning[n] = '\0';
}

static hdg_status compile_module(const char *source, const char *module_name, bool cxx,
                                 const hdg_jit_options *opt, hdg_jit **out,
                                 hdg_jit_stats *stats, hdg_error *err)
{
    hdg_jit_stats scratch;
    if (!stats) stats = &scratch;
    std::memset(stats, 0, sizeof *stats);
    hdg_error_clear(err);
    *out = nullptr;
    if (!source || !module_name || !*module_name)
        return hdg_fail(err, HDG_EINTERNAL, "hdg_jit_compile: no source or module name");
    const Host &h = host();
    if (!h.ok) return hdg_fail(err, HDG_EINTERNAL, "C backend: %s", h.error.c_str());
    hdg_jit_options o = HDG_JIT_OPTIONS_DEFAULT;
    if (opt) o = *opt;
    int level = std::min(std::max(o.opt_level, 0), 3);
    std::string file = std::string(module_name) + (cxx ? ".cpp" : ".c");

    char dir[4096] = "";
    if (o.use_cache) {
        hdg_error cerr;
        if (hdg_cache_dir(o.cache_dir, dir, sizeof dir, &cerr) != HDG_OK) {
            set_warning(stats, cerr.msg);
            dir[0] = '\0';
        }
    }
    std::string flags = flags_key(level, cxx);
    const char *parts[] = {source, h.version.c_str(), flags.c_str(), h.features_key.c_str()};
    unsigned long long key = hdg_cache_key(parts, 4);

    std::unique_ptr<hdg_jit> j(new hdg_jit());
    void *data = nullptr;
    size_t n = 0;
    double t0 = hdg_wtime();
    char cw[700];
    int hit = dir[0] && hdg_cache_get_warn(dir, "o", key, &data, &n, cw, sizeof cw);
    if (dir[0] && !hit) set_warning(stats, cw);   /* a damaged entry: compiled again, replaced */
    std::vector<StringRef> objs_in;
    if (hit && !unpack_objects((const char *)data, n, objs_in)) {   /* intact, but not ours: replaced */
        set_warning(stats, "a kernel cache entry held no objects; compiled again");
        hit = 0;
    }
    if (hit) {
        hdg_status st = load_objects(j.get(), objs_in, file, err);
        std::free(data);
        if (st != HDG_OK) return st;
        stats->cache_hit = 1;
        stats->load_seconds = hdg_wtime() - t0;
        *out = j.release();
        return HDG_OK;
    }
    std::free(data);

    std::vector<Object> objs;
    unsigned threads = o.threads > 0 ? (unsigned)o.threads : std::max(1u, std::thread::hardware_concurrency());
    hdg_status st = compile_objects(source, file, level, cxx, threads, objs, err);
    if (st != HDG_OK) return st;
    double t1 = hdg_wtime();
    stats->compile_seconds = t1 - t0;
    stats->objects = (int)objs.size();
    std::string packed = pack_objects(objs);
    unpack_objects(packed.data(), packed.size(), objs_in);
    st = load_objects(j.get(), objs_in, file, err);
    if (st != HDG_OK) return st;
    stats->load_seconds = hdg_wtime() - t1;
    if (dir[0]) {
        char w[512];
        if (hdg_cache_put(dir, "o", key, packed.data(), packed.size(), w, sizeof w) != 0)
            set_warning(stats, w);
    }
    *out = j.release();
    return HDG_OK;
}

extern "C" hdg_status hdg_jit_compile(const char *source, const char *module_name,
                                      const hdg_jit_options *opt, hdg_jit **out,
                                      hdg_jit_stats *stats, hdg_error *err)
{
    return compile_module(source, module_name, false, opt, out, stats, err);
}

extern "C" hdg_status hdg_jit_compile_cxx(const char *source, const char *module_name,
                                          const hdg_jit_options *opt, hdg_jit **out,
                                          hdg_jit_stats *stats, hdg_error *err)
{
    return compile_module(source, module_name, true, opt, out, stats, err);
}

extern "C" void *hdg_jit_lookup(hdg_jit *jit, const char *symbol)
{
    if (!jit || !symbol) return nullptr;
    auto sym = jit->lljit->lookup(symbol);
    if (!sym) {
        consumeError(sym.takeError());
        return nullptr;
    }
    return reinterpret_cast<void *>(static_cast<uintptr_t>(sym->getAddress()));
}

extern "C" void hdg_jit_free(hdg_jit *jit) { delete jit; }

extern "C" const char *hdg_jit_version(void) { return host().version.c_str(); }

extern "C" int hdg_jit_host_has(const char *feature)
{
    const std::string want = std::string("+") + feature;
    if (host().cpu_info) return host().cpu_info->checkFeatures(want);
    for (const std::string &f : host().features)
        if (f == want) return 1;
    return 0;
}
