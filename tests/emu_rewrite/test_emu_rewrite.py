#!/usr/bin/env python3
"""tools/emu_rewrite.py: launches and __shared__ declarations rewritten, the
rest of the file untouched, every line where it was, errors at file:line."""
import importlib.util
import os
import pathlib
import re
import subprocess
import sys
import tempfile
import textwrap
import unittest

SCRIPT = pathlib.Path(__file__).resolve().parents[2] / "tools" / "emu_rewrite.py"
_spec = importlib.util.spec_from_file_location("emu_rewrite", SCRIPT)
emu_rewrite = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(emu_rewrite)

LAUNCH = "::cudalab::emu::launch_chevron("
CONFIG = "::cudalab::emu::ChevronConfig{"
STATIC = "::cudalab::emu::static_shared"
DYNAMIC = "::cudalab::emu::dynamic_shared_memory()"
ARGUMENTS = "static_cast<void>(&::cudalab::emu::detail::launchable_from_arguments"
# What every kernel body starts with (class ArgumentLaunch tests it); the
# other tests compare the rest.
ARGUMENT_LAUNCH = re.compile(r" static_cast<void>\(&::cudalab::emu::detail::"
                             r"launchable_from_arguments<.*?\)>\);")


def code_tokens(text):
    return [t for t in emu_rewrite.tokenize(text)
            if t.kind in ("ident", "number", "punct", "string", "char") and t.group >= 0]


class RewriteCase(unittest.TestCase):
    def rewrite(self, source, keep_argument_launch=False):
        """The rewritten text without its #line, after the checks every output
        passes; without the kernels' argument-launch registrations unless kept."""
        source = textwrap.dedent(source)
        out = emu_rewrite.rewrite(source, "/src/k.cuh")
        first, _, body = out.partition("\n")
        self.assertEqual(first, '#line 1 "/src/k.cuh"')
        self.assertEqual(body.count("\n"), source.count("\n"), "the line count changed")
        leftovers = [(t.line, t.text) for t in code_tokens(body)
                     if t.text in ("<<<", "__shared__")]
        self.assertEqual(leftovers, [], "a launch or __shared__ was left behind")
        return body if keep_argument_launch else ARGUMENT_LAUNCH.sub("", body)

    def assertRewrites(self, source, expected):
        self.assertEqual(self.rewrite(source), textwrap.dedent(expected))

    def assertRewritesInFunction(self, source, expected):
        """As assertRewrites, with both texts in a function body."""
        wrap = "__global__ void k() {{\n{}}}\n".format
        self.assertRewrites(wrap(textwrap.dedent(source)), wrap(textwrap.dedent(expected)))


class Launches(RewriteCase):
    def test_plain_launch_with_two_to_four_values(self):
        self.assertRewrites(
            "k<<<g, b>>>(x, y);\nk<<<g, b, bytes>>>(x);\nk<<<g, b, 0, stream>>>();\n",
            f"{LAUNCH}k, {CONFIG}g, b}}, x, y);\n"
            f"{LAUNCH}k, {CONFIG}g, b, bytes}}, x);\n"
            f"{LAUNCH}k, {CONFIG}g, b, 0, stream}});\n")

    def test_qualified_template_kernel_with_a_comparison_in_its_arguments(self):
        self.assertRewrites(
            "ns::k<T, (N > 2)><<<grid, block>>>(p);\n",
            f"{LAUNCH}ns::k<T, (N > 2)>, {CONFIG}grid, block}}, p);\n")

    def test_template_arguments_closed_by_shift_tokens(self):
        self.assertRewrites(
            "k<A<int>><<<1, 1>>>(p);\n::k<A<B<int>>><<<1, 1>>>(p);\n",
            f"{LAUNCH}k<A<int>>, {CONFIG}1, 1}}, p);\n"
            f"{LAUNCH}::k<A<B<int>>>, {CONFIG}1, 1}}, p);\n")

    def test_dependent_kernel_names(self):
        self.assertRewrites(
            "Ops<T>::template apply<4><<<1, 32>>>(p);\n",
            f"{LAUNCH}Ops<T>::template apply<4>, {CONFIG}1, 32}}, p);\n")

    def test_kernel_through_a_pointer_table_or_member(self):
        self.assertRewrites(
            "table[i]<<<1, 1>>>(p);\n(*kernel)<<<1, 1>>>(p);\nset.kernels[2]<<<1, 1>>>();\n",
            f"{LAUNCH}table[i], {CONFIG}1, 1}}, p);\n"
            f"{LAUNCH}(*kernel), {CONFIG}1, 1}}, p);\n"
            f"{LAUNCH}set.kernels[2], {CONFIG}1, 1}});\n")

    def test_nested_parentheses_and_template_calls_in_the_configuration(self):
        self.assertRewrites(
            "k<<<dim3((n + 255) / 256), std::max<int>(a, b), 0, s>>>(p, f(q, r));\n",
            f"{LAUNCH}k, {CONFIG}dim3((n + 255) / 256), std::max<int>(a, b), 0, s}}, "
            "p, f(q, r));\n")

    def test_shift_right_in_configuration_and_arguments(self):
        self.assertRewrites(
            "k<<<n >> 8, 1 << 8>>>(x >> 1, y<<2);\n",
            f"{LAUNCH}k, {CONFIG}n >> 8, 1 << 8}}, x >> 1, y<<2);\n")

    def test_after_return_and_in_a_condition(self):
        self.assertRewrites(
            "if (ok) return k<<<1, 1>>>(p);\nelse k<<<2, 2>>>(p);\n",
            f"if (ok) return {LAUNCH}k, {CONFIG}1, 1}}, p);\n"
            f"else {LAUNCH}k, {CONFIG}2, 2}}, p);\n")
        self.assertRewrites(
            "if (ok) (*kernel)<<<1, 1>>>(p);\nwhile (f(x)) get(x)(y)<<<1, 1>>>(p);\n",
            f"if (ok) {LAUNCH}(*kernel), {CONFIG}1, 1}}, p);\n"
            f"while (f(x)) {LAUNCH}get(x)(y), {CONFIG}1, 1}}, p);\n")

    def test_digit_separators_and_character_literals(self):
        self.assertRewrites(
            "k<<<1'000, 32>>>(p, '<', '\\'');\n",
            f"{LAUNCH}k, {CONFIG}1'000, 32}}, p, '<', '\\'');\n")

    def test_multiline_launch_keeps_every_token_on_its_line(self):
        source = textwrap.dedent("""\
            scale<float,
                  4>
                <<<(n + 127) / 128,
                   128, 0,
                   stream>>>(
                    out,
                    in);
            """)
        out = self.rewrite(source)
        self.assertEqual(out, textwrap.dedent(f"""\
            {LAUNCH}scale<float,
                  4>
                , {CONFIG}(n + 127) / 128,
                   128, 0,
                   stream}}, 
                    out,
                    in);
            """))
        removed = {"<<<", ">>>", "("}
        before = [(t.line, t.text) for t in code_tokens(source) if t.text not in removed]
        after = [(t.line, t.text) for t in code_tokens(out)]
        for place in before:
            self.assertIn(place, after)

    def test_launch_inside_a_macro_body(self):
        self.assertRewrites(
            """\
            #define LAUNCH(k) k<<<1, 1>>>()
            #define LAUNCH_N(k, n, ...) \\
              k<<<((n) + 31) / 32, \\
                  32>>>(__VA_ARGS__)
            LAUNCH(kernel);
            """,
            f"""\
            #define LAUNCH(k) {LAUNCH}k, {CONFIG}1, 1}})
            #define LAUNCH_N(k, n, ...) \\
              {LAUNCH}k, {CONFIG}((n) + 31) / 32, \\
                  32}}, __VA_ARGS__)
            LAUNCH(kernel);
            """)

    def test_chevrons_in_strings_comments_and_other_directives_are_left_alone(self):
        source = textwrap.dedent('''\
            const char* a = "k<<<1, 1>>>() __shared__ int x;";
            const char* b = R"raw(k<<<1, 1>>>("") __shared__)raw";
            const char* c = u8"k<<<";
            // k<<<1, 1>>>(p); __shared__ int y;
            /* k<<<1, 1>>>(p);
               __shared__ int z; */
            #pragma message("k<<<1, 1>>>()")
            #if 0 // __shared__
            #endif
            ''')
        self.assertEqual(self.rewrite(source), source)

    def test_operator_shift_with_explicit_template_arguments_is_not_a_launch(self):
        source = "auto r = operator<<<int>(os, x);\n"
        self.assertEqual(emu_rewrite.rewrite(source, "/k.cuh"), '#line 1 "/k.cuh"\n' + source)


class StaticShared(RewriteCase):
    def test_one_two_and_three_dimensions(self):
        self.assertRewritesInFunction(
            "__shared__ float a[32];\n__shared__ float t[32][33];\n__shared__ int c[2][3][4];\n",
            f"float (&a)[32] = {STATIC}<float[32]>([] {{}});\n"
            f"float (&t)[32][33] = {STATIC}<float[32][33]>([] {{}});\n"
            f"int (&c)[2][3][4] = {STATIC}<int[2][3][4]>([] {{}});\n")

    def test_scalar_and_static(self):
        self.assertRewritesInFunction(
            "__shared__ int count;\nstatic __shared__ unsigned long long total;\n",
            f"int& count = {STATIC}<int>([] {{}});\n"
            f"unsigned long long& total = {STATIC}<unsigned long long>([] {{}});\n")

    def test_volatile_anywhere_among_the_specifiers(self):
        self.assertRewritesInFunction(
            "volatile __shared__ int flags[4];\n__shared__ volatile float v;\n",
            f"volatile int (&flags)[4] = {STATIC}<int[4]>([] {{}});\n"
            f"volatile float& v = {STATIC}<float>([] {{}});\n")

    def test_alignment(self):
        self.assertRewritesInFunction(
            "__shared__ __align__(16) float a[8];\n"
            "alignas(16) __shared__ float b[8];\n"
            "__shared__ float alignas(2 * 16) c[8];\n",
            f"float (&a)[8] = {STATIC}<float[8], 16>([] {{}});\n"
            f"float (&b)[8] = {STATIC}<float[8], 16>([] {{}});\n"
            f"float (&c)[8] = {STATIC}<float[8], 2 * 16>([] {{}});\n")

    def test_attributes_stay_in_front(self):
        self.assertRewritesInFunction(
            "[[maybe_unused]] __shared__ int spare[2];\n",
            f"[[maybe_unused]] int (&spare)[2] = {STATIC}<int[2]>([] {{}});\n")

    def test_two_declarators_become_two_declarations(self):
        self.assertRewritesInFunction(
            "__shared__ float a[4], b[8][2];\n",
            f"float (&a)[4] = {STATIC}<float[4]>([] {{}}); "
            f"float (&b)[8][2] = {STATIC}<float[8][2]>([] {{}});\n")

    def test_declarators_on_their_own_lines_keep_their_lines(self):
        self.assertRewritesInFunction(
            "__shared__ float\n    sums[32],\n    *slots[4];\nx = sums[0];\n",
            f"\nfloat (&sums)[32] = {STATIC}<float[32]>([] {{}});\n"
            f"float * (&slots)[4] = {STATIC}<float *[4]>([] {{}});\nx = sums[0];\n")

    def test_template_dependent_type_and_bounds(self):
        self.assertRewrites(
            """\
            template <class T, int N>
            __global__ void k(T* p) {
              __shared__ typename Traits<T>::value_type tile[N][N + 1];
              __shared__ Pair<T, N> pairs[sizeof(T) * 4];
            }
            """,
            f"""\
            template <class T, int N>
            __global__ void k(T* p) {{
              typename Traits<T>::value_type (&tile)[N][N + 1] = {STATIC}<typename Traits<T>::value_type[N][N + 1]>([] {{}});
              Pair<T, N> (&pairs)[sizeof(T) * 4] = {STATIC}<Pair<T, N>[sizeof(T) * 4]>([] {{}});
            }}
            """)

    def test_in_a_member_function_of_a_struct(self):
        self.assertRewrites(
            "struct S {\n  __device__ void f() { __shared__ int x[2]; }\n};\n",
            f"struct S {{\n  __device__ void f() {{ int (&x)[2] = {STATIC}<int[2]>([] {{}}); }}\n}};\n")

    def test_in_a_macro_body(self):
        self.assertRewritesInFunction(
            "#define TILE(name) __shared__ float name[32][33]; \\\n  (void)name\n",
            f"#define TILE(name) float (&name)[32][33] = {STATIC}<float[32][33]>([] {{}}); \\\n"
            "  (void)name\n")


class DynamicShared(RewriteCase):
    def test_in_a_function(self):
        self.assertRewrites(
            "__global__ void k() {\n  extern __shared__ float buf[];\n"
            "  extern __shared__ __align__(16) unsigned char raw[];\n"
            "  extern volatile __shared__ int flags[];\n"
            "  extern __shared__ float rows[][32];\n}\n",
            "__global__ void k() {\n"
            f"  float* const buf = static_cast<float*>({DYNAMIC});\n"
            f"  unsigned char* const raw = static_cast<unsigned char*>({DYNAMIC});\n"
            f"  volatile int* const flags = static_cast<volatile int*>({DYNAMIC});\n"
            f"  float (*const rows)[32] = static_cast<float (*)[32]>({DYNAMIC});\n"
            "}\n")


class NamespaceScope(RewriteCase):
    NS = "[[maybe_unused]] static ::cudalab::emu::"

    def test_static_and_dynamic_at_namespace_scope(self):
        self.assertRewrites(
            """\
            __shared__ float tile[32][33];
            namespace lab { inline namespace CUDALAB_BACKEND {
            extern __shared__ float buf[];
            __shared__ __align__(8) int count;
            __global__ void k() { __shared__ int local[2]; }
            }}
            extern "C" { __shared__ int c_array[4]; }
            """,
            f"""\
            {self.NS}shared_at_namespace<float[32][33], decltype([] {{}})> tile;
            namespace lab {{ inline namespace CUDALAB_BACKEND {{
            {self.NS}dynamic_shared_at_namespace<float> buf;
            {self.NS}shared_at_namespace<int, decltype([] {{}}), 8> count;
            __global__ void k() {{ int (&local)[2] = {STATIC}<int[2]>([] {{}}); }}
            }}}}
            extern "C" {{ {self.NS}shared_at_namespace<int[4], decltype([] {{}})> c_array; }}
            """)


class Errors(unittest.TestCase):
    def run_script(self, source):
        with tempfile.TemporaryDirectory() as tmp:
            path = pathlib.Path(tmp, "student.cuh").resolve()
            path.write_text(textwrap.dedent(source))
            out = pathlib.Path(tmp, "out", "student.cuh")
            result = subprocess.run([sys.executable, str(SCRIPT), str(path), str(out)],
                                    capture_output=True, text=True)
            self.assertFalse(out.exists(), "no output on an error")
            return result, str(path)

    def assertError(self, source, line, what):
        result, path = self.run_script(source)
        self.assertEqual(result.returncode, 1, result.stderr)
        self.assertIn(f"{path}:{line}: error: ", result.stderr)
        self.assertIn(what, result.stderr)

    def test_chevrons_without_an_end(self):
        self.assertError("void f() {\n  k<<<1, 1(p);\n}\n", 2, "'<<<' without a matching '>>>'")

    def test_no_arguments_after_the_chevrons(self):
        self.assertError("\n\nk<<<1, 1>>>;\n", 3, "expected '(' with the kernel's arguments")

    def test_no_kernel_before_the_chevrons(self):
        self.assertError("x = 1;\n<<<1, 1>>>(p);\n", 2, "no kernel before '<<<'")

    def test_empty_configuration(self):
        self.assertError("k<<<>>>(p);\n", 1, "empty launch configuration")

    def test_unbalanced_template_arguments(self):
        self.assertError("x;\nk<int>>><<<1, 1>>>(p);\n", 2, "unbalanced")

    def test_unbalanced_arguments(self):
        self.assertError("k<<<1, 1>>>(p, (q);\n", 1, "unbalanced '('")

    def test_initialiser_on_shared(self):
        self.assertError("__global__ void k() {\n\n  __shared__ int x = 0;\n}\n", 3,
                         "an initialiser on a __shared__ variable")
        self.assertError("__shared__ float s[4] = {};\n", 1,
                         "an initialiser on a __shared__ variable")
        self.assertError("__shared__ float s[4]{};\n", 1,
                         "an initialiser on a __shared__ variable")

    def test_shared_it_cannot_classify(self):
        self.assertError("__shared__ float (*rows)[4];\n", 1, "cannot classify")
        self.assertError("\nextern __shared__ float x;\n", 2, "extern __shared__ must be an unsized")
        self.assertError("__shared__ float s[];\n", 1, "must be `extern __shared__`")
        self.assertError("__shared__ float a[2], ;\n", 1, "cannot classify")
        self.assertError("#define SMEM __shared__\n", 1, "cannot find the ';'")

    def test_unterminated_literal(self):
        self.assertError("x;\nconst char* s = \"abc;\n", 2, "unterminated string literal")


class Files(unittest.TestCase):
    def test_line_names_the_absolute_input_and_unchanged_output_is_not_rewritten(self):
        with tempfile.TemporaryDirectory() as tmp:
            source = pathlib.Path(tmp, "k.cuh")
            source.write_text("k<<<1, 1>>>(p);\n")
            out = pathlib.Path(tmp, "copy", "k.cuh")
            run = [sys.executable, str(SCRIPT), os.path.relpath(source), str(out)]
            subprocess.run(run, check=True)
            text = out.read_text()
            self.assertEqual(text.splitlines()[0], f'#line 1 "{source.resolve()}"')
            os.utime(out, ns=(1, 1))
            subprocess.run(run, check=True)
            self.assertEqual(out.stat().st_mtime_ns, 1, "an unchanged copy was written again")
            source.write_text("k<<<2, 1>>>(p);\n")
            subprocess.run(run, check=True)
            self.assertIn("ChevronConfig{2, 1}", out.read_text())
            self.assertNotEqual(out.stat().st_mtime_ns, 1)


class ConstantAndDevice(RewriteCase):
    CONSTANT = "::cudalab::emu::constant_symbol"

    def test_arrays_scalars_alignment_and_initialisers(self):
        c = self.CONSTANT
        self.assertRewrites(
            "__constant__ float lut[256];\n"
            "static __constant__ __align__(16) int t[4] = {1, 2, 3, 4}, u[2];\n"
            "__constant__ const float k = 2.0f;\n",
            f'[[maybe_unused]] static {c}<float[256], decltype([] {{}})> '
            f'lut{{"lut", __FILE__, __LINE__}};\n'
            f'[[maybe_unused]] static {c}<int[4], decltype([] {{}}), 16> '
            f't{{"t", __FILE__, __LINE__, {{1, 2, 3, 4}}}}; '
            f'[[maybe_unused]] static {c}<int[2], decltype([] {{}}), 16> '
            f'u{{"u", __FILE__, __LINE__}};\n'
            f'[[maybe_unused]] static {c}<float, decltype([] {{}})> '
            f'k{{"k", __FILE__, __LINE__, 2.0f}};\n')

    def test_device_variables_are_registered_and_functions_left_alone(self):
        out = self.rewrite("__device__ float* p;\n"
                           "__device__ inline float f(float x) { return x; }\n")
        first, second, _ = out.split("\n")
        self.assertTrue(first.startswith("__device__ float* p; [[maybe_unused]] static const bool"))
        self.assertIn('register_device_symbol(::std::addressof(p), sizeof(p), "p");', first)
        self.assertEqual(second, "__device__ inline float f(float x) { return x; }")

    def test_constant_in_a_function_or_extern_is_an_error(self):
        for source in ("__global__ void k() {\n  __constant__ float c[2];\n}\n",
                       "extern __constant__ float c[2];\n"):
            with self.assertRaises(emu_rewrite.RewriteError):
                emu_rewrite.rewrite(source, "/src/k.cuh")


class ClusterDims(RewriteCase):
    REGISTERED = "static_cast<void>(&::cudalab::emu::detail::compiled_cluster_dims_registered"

    def assertRewrites(self, source, expected):
        """Spaces aside: removing the attribute leaves the blanks around it."""
        def spaces(text):
            return "\n".join(" ".join(line.split()) for line in text.split("\n"))
        self.assertEqual(spaces(self.rewrite(source)), spaces(expected))

    def test_kernel_registers_its_shape_in_its_body(self):
        self.assertRewrites(
            "__global__ void __cluster_dims__(2, 1, 1) k(int* p) {\n  p[0] = 1;\n}\n",
            f"__global__ void  k(int* p) {{ {self.REGISTERED}<&k, (2), (1), (1)>);\n"
            "  p[0] = 1;\n}\n")

    def test_missing_dimensions_are_one_and_the_attribute_may_come_first(self):
        self.assertRewrites(
            "__cluster_dims__(4) __global__ void k() {}\n",
            f" __global__ void k() {{ {self.REGISTERED}<&k, (4), (1), (1)>);}}\n")

    def test_template_kernel_names_its_parameters_and_a_declaration_loses_the_attribute(self):
        self.assertRewrites(
            "template <class T, int N = 2, class... Ts>\n"
            "__global__ void __cluster_dims__(N,\n 2) k(T* p, Ts... xs);\n"
            "template <class T, int N, class... Ts>\n"
            "__global__ void __cluster_dims__(N, 2) k(T* p, Ts... xs) {}\n",
            "template <class T, int N = 2, class... Ts>\n"
            "__global__ void  \n k(T* p, Ts... xs);\n"
            "template <class T, int N, class... Ts>\n"
            f"__global__ void  k(T* p, Ts... xs) {{ {self.REGISTERED}<&k<T, N, Ts...>, (N), (2), "
            "(1)>);}\n")

    def test_what_it_cannot_rewrite_is_an_error(self):
        for source in ("__global__ void __cluster_dims__() k() {}\n",
                       "__global__ void __cluster_dims__(1, 2, 3, 4) k() {}\n",
                       "template <class>\n__global__ void __cluster_dims__(2) k() {}\n",
                       "int __cluster_dims__(2) x = 1;\n"):
            with self.assertRaises(emu_rewrite.RewriteError):
                emu_rewrite.rewrite(source, "/src/k.cuh")


class HostBuiltinNames(unittest.TestCase):
    """threadIdx & co as host names: the declaration that holds one is
    bracketed by push/undef/pop of the shim's macros, its device code reads
    the CUDALAB_EMU_ spelling, and #line keeps every line where it was."""

    def rewrite(self, source):
        return emu_rewrite.rewrite(textwrap.dedent(source), "/src/k.cuh")

    def lines_as_compiled(self, out):
        """{line: text} of the output, as the compiler numbers it after #line."""
        lines, number = {}, 0
        for text in out.split("\n"):
            directive = text.strip()
            if directive.startswith("#line"):
                number = int(directive.split()[1])
                continue
            if directive.startswith(("#pragma push_macro", "#pragma pop_macro", "#undef")):
                continue
            if text:
                lines[number] = lines.get(number, "") + text
            number += 1
        return lines

    def test_device_code_alone_is_untouched(self):
        # A __device__ function: a kernel's body also gains the argument-launch
        # registration (ArgumentLaunch), which is not this test's business.
        source = "__device__ int at(int* p) { return p[threadIdx.x] + gridDim.x; }\n"
        self.assertEqual(self.rewrite(source), '#line 1 "/src/k.cuh"\n' + source)

    def test_host_variables_and_members_are_bracketed(self):
        out = self.rewrite("""\
            __global__ void k(int* p) { p[threadIdx.x] = blockDim.x; }
            void launch(int* p) {
              dim3 gridDim(2), blockDim(32);
              cudaKernelNodeParams params{};
              params.gridDim = gridDim;
              k<<<gridDim, blockDim>>>(p);
            }
            """)
        head, _, rest = out.partition("#pragma push_macro")
        self.assertIn("p[threadIdx.x] = blockDim.x;", head, "the kernel must keep the macros")
        self.assertEqual(rest.count("#undef"), 4)
        for name in emu_rewrite.BUILTINS:
            self.assertIn(f'#pragma pop_macro("{name}")', rest)
        lines = self.lines_as_compiled(out)
        self.assertEqual(lines[3], "  dim3 gridDim(2), blockDim(32);")
        self.assertEqual(lines[5], "  params.gridDim = gridDim;")
        self.assertEqual(lines[7], "}")

    def test_device_code_inside_a_bracketed_declaration_reads_the_builtin(self):
        out = self.rewrite("""\
            struct Shape {
              dim3 gridDim;
              __device__ static unsigned lane() { return threadIdx.x % 32; }
              __device__ unsigned block() const { return blockIdx.x; }
            };
            """)
        lines = self.lines_as_compiled(out)
        self.assertIn("return CUDALAB_EMU_threadIdx.x % 32;", lines[3])
        self.assertIn("return CUDALAB_EMU_blockIdx.x;", lines[4],
                      "a use in device code means the builtin, as nvcc reads it")
        self.assertEqual(lines[2], "  dim3 gridDim;")
        self.assertEqual(lines[5], "};")


class ArgumentLaunch(RewriteCase):
    def assertRewrites(self, source, expected):
        self.assertEqual(self.rewrite(source, keep_argument_launch=True), expected)

    def test_a_kernel_registers_itself_cast_to_its_parameters_without_defaults(self):
        self.assertRewrites(
            "__global__ void __launch_bounds__(256) k(float* y, int n = 3) {\n  y[0] = n;\n}\n",
            "__global__ void __launch_bounds__(256) k(float* y, int n = 3) { "
            f"{ARGUMENTS}<static_cast<void (*)(float* y, int n)>(&k)>);\n  y[0] = n;\n}}\n")

    def test_a_template_kernel_registers_each_instantiation_and_a_declaration_nothing(self):
        self.assertRewrites(
            "template <class T, int N = 2, class... Ts>\n"
            "__global__ void k(T* p, Ts... xs);\n"
            "template <class T, int N, class... Ts>\n"
            "__global__ void k(T* p, Ts... xs) {}\n",
            "template <class T, int N = 2, class... Ts>\n"
            "__global__ void k(T* p, Ts... xs);\n"
            "template <class T, int N, class... Ts>\n"
            "__global__ void k(T* p, Ts... xs) { "
            f"{ARGUMENTS}<static_cast<void (*)(T* p, Ts... xs)>(&k<T, N, Ts...>)>);}}\n")

    def test_with_cluster_dims_both_registrations_start_the_body(self):
        self.assertRewrites(
            "extern \"C\" __global__ void __cluster_dims__(2) k() {}\n",
            "extern \"C\" __global__ void  k() { "
            f"{ARGUMENTS}<static_cast<void (*)()>(&k)>); "
            "static_cast<void>(&::cudalab::emu::detail::compiled_cluster_dims_registered"
            "<&k, (2), (1), (1)>);}\n")

    def test_an_unnamed_template_parameter_or_a_macro_body_is_left_alone(self):
        for source in ("template <class>\n__global__ void k(int) {}\n",
                       "#define KERNEL __global__ void k() {}\n"):
            self.assertRewrites(source, source)


if __name__ == "__main__":
    unittest.main()
