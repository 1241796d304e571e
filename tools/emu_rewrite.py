#!/usr/bin/env python3
"""Rewrite a plain-CUDA kernel file into the copy the emulator build compiles.

Usage: emu_rewrite.py IN OUT

The host compiler cannot parse two things nvcc accepts: triple-chevron launches
and `__shared__` variables (the emulator keeps one copy of each per block, not
per host thread). This script rewrites exactly those, like hipify-perl does for
HIP, and leaves every other byte alone:

    K<<<G, B[, S[, ST]]>>>(ARGS)
        ::cudalab::emu::launch_chevron(K, ::cudalab::emu::ChevronConfig{G, B[, S[, ST]]}, ARGS)
    __shared__ [__align__(N)] T name[D1][D2];             (in a function)
        T (&name)[D1][D2] = ::cudalab::emu::static_shared<T[D1][D2], N>([] {});
    extern __shared__ T name[];                            (in a function)
        T* const name = static_cast<T*>(::cudalab::emu::dynamic_shared_memory());
    at namespace scope, a static object of a wrapper type from
    cudalab/emu/shared_at_namespace.hpp that reaches the current block's copy.
    __constant__ [__align__(N)] T name[D] [= INIT];        (at namespace scope)
        static ::cudalab::emu::constant_symbol<T[D], Site[, N]> name{"name", __FILE__, __LINE__[, INIT]};
    __device__ T name ...;                                 (a variable at namespace scope)
        kept, and registered as a symbol for cudaMemcpyToSymbol & co on the same line.
    __global__ void __cluster_dims__(X, Y, Z) k(PARAMS) {  (a kernel's cluster shape)
        __global__ void k(PARAMS) { static_cast<void>(&<registration><&k, (X), (Y), (Z)>);
        (a template kernel names itself k<ITS PARAMETERS>): the registration's
        initialiser records the shape before main, so a plain k<<<...>>> runs as clusters.
    threadIdx, blockIdx, blockDim, gridDim outside __global__/__device__ code
        (`dim3 gridDim;`, `params.gridDim`): host names, not the builtins. The
        namespace-scope declaration that holds them is bracketed by
        `#pragma push_macro` + `#undef` ... `#pragma pop_macro` of the shim's
        builtin macros, with `#line` after each so lines stay right; inside it,
        device code reads the builtins through their CUDALAB_EMU_ spelling.
    __global__ void k(PARAMS) {                            (every kernel with a body)
        __global__ void k(PARAMS) { static_cast<void>(&<registration><static_cast<void (*)(PARAMS)>(&k)>);
        (PARAMS without default arguments; the cast picks the overload): the kernel
        can be launched from an array of argument pointers (cudaLaunchKernel, graph
        kernel nodes). A template kernel with an unnamed template parameter is left
        unregistered (its body could not name it).

It skips comments, string, character and raw-string literals and preprocessor
lines, except the bodies of #define, where launches are real code too.

OUT starts with `#line 1 "<absolute path of IN>"` and keeps every line break
of IN in place, so compiler diagnostics and debug information name the
student's file and line. OUT is written only when its content changes, so that
the build does not recompile what did not change.

A construct it cannot rewrite faithfully (unbalanced chevrons, an initialiser
on a __shared__ variable, a __shared__ declaration it cannot classify) is an
error `IN:LINE: error: what` on stderr and exit status 1: it never leaves a
launch or a __shared__ variable behind for the host compiler to misread.
"""
import dataclasses
import pathlib
import re
import sys

LAUNCH = "::cudalab::emu::launch_chevron("
CONFIG = "::cudalab::emu::ChevronConfig{"
STATIC_SHARED = "::cudalab::emu::static_shared"
# printf, ::printf and std::printf calls: device printf in a kernel, vprintf
# in host code (cudalab/emu/device_printf.hpp).
PRINTF = "::cudalab::emu::device_printf"
DYNAMIC_SHARED = "::cudalab::emu::dynamic_shared_memory()"
NAMESPACE_STATIC = "::cudalab::emu::shared_at_namespace"
NAMESPACE_DYNAMIC = "::cudalab::emu::dynamic_shared_at_namespace"
CONSTANT = "::cudalab::emu::constant_symbol"
DEVICE_SYMBOL = "::cudalab::emu::detail::register_device_symbol"
CLUSTER_DIMS = "::cudalab::emu::detail::compiled_cluster_dims_registered"
# The shim's object-like macros for CUDA's builtin variables, each an alias of
# CUDALAB_EMU_<name> (cudalab/emu/builtin_variables.hpp).
BUILTINS = ("threadIdx", "blockIdx", "blockDim", "gridDim")
BUILTIN_SPELLING = "CUDALAB_EMU_"
ARGUMENT_LAUNCH = "::cudalab::emu::detail::launchable_from_arguments"
# Names followed by parentheses between `__global__` and a kernel's name.
KERNEL_ATTRIBUTE = re.compile(r"__[A-Za-z0-9_]+__|alignas")

# Longest first: the lexer takes the longest punctuator that matches.
# `<<<` and `>>>` are tokens of their own (as in nvcc), so a launch is found
# without confusing it with `<<` or a template's closing `>>`.
PUNCTUATORS = sorted(
    """<<< >>> ... <<= >>= ->* <=> :: -> ++ -- << >> <= >= == != && || += -= *= /= %= &= |= ^=
    ## .* { } [ ] ( ) ; : ? . + - * / % ^ & | ~ ! = < > , #""".split(),
    key=len, reverse=True)
CLOSERS = {">": 1, ">>": 2, ">>>": 3}
OPENER_OF = {")": "(", "]": "[", "}": "{"}
CLOSER_OF = {v: k for k, v in OPENER_OF.items()}
# Specifiers of a __shared__ declaration that are not part of its type.
STORAGE = {"static", "extern", "__shared__", "__device__"}
CV = {"const", "volatile"}
KEYWORDS = set("""alignas alignof and asm auto bool break case catch char char8_t char16_t
    char32_t class co_await co_return co_yield concept const consteval constexpr constinit
    const_cast continue decltype default delete do double dynamic_cast else enum explicit
    export extern false float for friend goto if inline int long mutable namespace new
    noexcept not nullptr operator or private protected public register reinterpret_cast
    requires return short signed sizeof static static_assert static_cast struct switch
    template this thread_local throw true try typedef typeid typename union unsigned using
    virtual void volatile wchar_t while""".split())

IDENT = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
NUMBER = re.compile(r"\.?[0-9](?:[eEpP][+-]|'[0-9A-Za-z_]|[0-9A-Za-z_.])*")
RAW_PREFIXES = {"R", "u8R", "uR", "UR", "LR"}
LITERAL_PREFIXES = {"u8", "u", "U", "L"}
DIRECTIVE = re.compile(r"#[ \t]*([A-Za-z_]*)")
DEFINE_HEAD = re.compile(r"#[ \t]*define[ \t]+[A-Za-z_$][A-Za-z0-9_$]*(\([^)\n]*\))?")

SIGNIFICANT = {"ident", "number", "string", "char", "punct", "define"}


class RewriteError(Exception):
    def __init__(self, line, what):
        super().__init__(what)
        self.line = line
        self.what = what


@dataclasses.dataclass
class Token:
    kind: str  # space newline splice comment directive define ident number string char punct
    text: str
    line: int  # line of its first character, 1-based
    group: int  # 0: code; n > 0: the body of the n-th #define; -1: another directive


def tokenize(text):
    tokens = []
    i, line, group, defines = 0, 1, 0, 0
    at_line_start = True
    n = len(text)

    def emit(kind, end):
        nonlocal i, line
        tokens.append(Token(kind, text[i:end], line, group))
        line += text.count("\n", i, end)
        i = end

    def end_of_quoted(start, quote):
        j = start
        while j < n and text[j] != quote:
            if text[j] == "\\":
                j += 1
            elif text[j] == "\n":
                break
            j += 1
        if j >= n or text[j] != quote:
            what = "string" if quote == '"' else "character"
            raise RewriteError(line, f"unterminated {what} literal")
        return j + 1

    while i < n:
        c = text[i]
        if c == "\n":
            group = 0
            emit("newline", i + 1)
            at_line_start = True
            continue
        if text.startswith("\\\n", i) or text.startswith("\\\r\n", i):
            emit("splice", text.index("\n", i) + 1)
            continue
        if c in " \t\r\f\v":
            j = i
            while j < n and text[j] in " \t\r\f\v":
                j += 1
            emit("space", j)
            continue
        if text.startswith("//", i):
            j = i
            while j < n and text[j] != "\n":
                j += 2 if text.startswith("\\\n", j) else 1
            emit("comment", j)
            continue
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            if j < 0:
                raise RewriteError(line, "unterminated /* comment")
            emit("comment", j + 2)
            continue
        if c == "#" and at_line_start:
            at_line_start = False
            name = DIRECTIVE.match(text, i).group(1)
            if name == "define":
                head = DEFINE_HEAD.match(text, i)
                if head is None:
                    raise RewriteError(line, "cannot read this #define")
                defines += 1
                group = defines
                emit("define", head.end())
            else:
                # Opaque to the end of the logical line; a /* comment may span lines.
                j = i
                while j < n and text[j] != "\n":
                    if text.startswith("/*", j):
                        k = text.find("*/", j + 2)
                        j = n if k < 0 else k + 2
                    elif text.startswith("\\\n", j):
                        j += 2
                    else:
                        j += 1
                group = -1
                emit("directive", j)
            continue
        at_line_start = False
        m = IDENT.match(text, i)
        if m:
            word = m.group()
            end = m.end()
            if word in RAW_PREFIXES and text.startswith('"', end):
                raw = re.compile(r'"([^ ()\\\t\v\f\n]{0,16})\(').match(text, end)
                if raw is None:
                    raise RewriteError(line, "cannot read this raw string literal")
                close = text.find(")" + raw.group(1) + '"', raw.end())
                if close < 0:
                    raise RewriteError(line, "unterminated raw string literal")
                emit("string", close + len(raw.group(1)) + 2)
            elif word in LITERAL_PREFIXES and end < n and text[end] in "\"'":
                emit("string" if text[end] == '"' else "char", end_of_quoted(end + 1, text[end]))
            else:
                emit("ident", end)
            continue
        m = NUMBER.match(text, i)
        if m:
            emit("number", m.end())
            continue
        if c in "\"'":
            emit("string" if c == '"' else "char", end_of_quoted(i + 1, c))
            continue
        for p in PUNCTUATORS:
            if text.startswith(p, i):
                emit("punct", i + len(p))
                break
        else:
            emit("punct", i + 1)  # a stray character: the compiler will say what it thinks
    return tokens


class Rewriter:
    def __init__(self, text):
        self.tokens = tokenize(text)
        self.replace = {}  # token index -> new text
        self.prefix = {}  # token index -> text inserted before it
        # Per group, the indices of its significant tokens: the walks below
        # never leave a group (a #define body or the code around it).
        self.code = {}
        for index, token in enumerate(self.tokens):
            if token.kind in SIGNIFICANT and token.group >= 0:
                self.code.setdefault(token.group, []).append(index)
        self.namespace_braces = self._namespace_braces()

    # ---- helpers over one group's significant tokens: `seq` and positions in it
    def text(self, seq, p):
        return self.tokens[seq[p]].text if 0 <= p < len(seq) else ""

    def line(self, seq, p):
        return self.tokens[seq[min(max(p, 0), len(seq) - 1)]].line

    def is_name(self, seq, p):
        if not 0 <= p < len(seq):
            return False
        token = self.tokens[seq[p]]
        return token.kind == "ident" and token.text not in KEYWORDS

    def match_back(self, seq, p):
        """Position of the opener matching the ) ] or } at p."""
        stack, start = [], p
        while p >= 0:
            t = self.text(seq, p)
            if t in OPENER_OF:
                stack.append(OPENER_OF[t])
            elif t in CLOSER_OF:
                if not stack or stack.pop() != t:
                    break
                if not stack:
                    return p
            elif self.tokens[seq[p]].kind == "define":
                break
            p -= 1
        raise RewriteError(self.line(seq, start), f"unbalanced '{self.text(seq, start)}'")

    def match_forward(self, seq, p):
        """Position of the closer matching the ( [ or { at p."""
        stack = []
        start = p
        while p < len(seq):
            t = self.text(seq, p)
            if t in CLOSER_OF:
                stack.append(CLOSER_OF[t])
            elif t in OPENER_OF:
                if not stack or stack.pop() != t:
                    break
                if not stack:
                    return p
            p += 1
        raise RewriteError(self.line(seq, start), f"unbalanced '{self.text(seq, start)}'")

    def match_angle_back(self, seq, p):
        """Position of the `<` that opens the template arguments closed at p."""
        depth, start = 0, p
        while p >= 0:
            t = self.text(seq, p)
            if t in CLOSERS:
                depth += CLOSERS[t]
            elif t == "<":
                depth -= 1
                if depth == 0:
                    return p
            elif t in OPENER_OF:
                p = self.match_back(seq, p)
            elif t in CLOSER_OF or t == ";" or self.tokens[seq[p]].kind == "define":
                break
            p -= 1
        raise RewriteError(self.line(seq, start), "unbalanced '<' '>' before '<<<'")

    # ---- launches
    def kernel_start(self, seq, chevron):
        """Position of the first token of the kernel expression before `<<<`."""
        p = chevron - 1
        start = None
        while p >= 0:
            t = self.text(seq, p)
            if t in CLOSERS:
                p = self.match_angle_back(seq, p) - 1
                if not self.is_name(seq, p):
                    break
                continue
            if t in (")", "]"):
                start = p = self.match_back(seq, p)
                before = self.text(seq, p - 1)
                if before == ")" and self.text(seq, self.match_back(seq, p - 1) - 1) in KEYWORDS:
                    return start  # if (ready) (*kernel)<<<...>>>: the parentheses are the if's
                if self.is_name(seq, p - 1) or before in (")", "]") or before in CLOSERS:
                    p -= 1
                    continue
                return start
            if self.is_name(seq, p) or t == "this":
                start = p
                before = self.text(seq, p - 1)
                if before == "template":
                    p -= 1
                    before = self.text(seq, p - 1)
                if before == "::":
                    start = p - 1
                    if self.is_name(seq, p - 2) or self.text(seq, p - 2) in CLOSERS:
                        p -= 2
                        continue
                    return start
                if before in (".", "->"):
                    p -= 2
                    start = None
                    continue
                return start
            break
        if start is None:
            raise RewriteError(self.line(seq, chevron), "no kernel before '<<<'")
        return start

    def rewrite_launch(self, seq, chevron):
        if self.text(seq, chevron - 1) == "operator":
            return  # operator<< <T>: not a launch
        start = self.kernel_start(seq, chevron)
        line = self.line(seq, chevron)
        p = chevron + 1
        while True:
            t = self.text(seq, p)
            if t == ">>>":
                break
            if t in CLOSER_OF:
                p = self.match_forward(seq, p)
            elif t in OPENER_OF or t in (";", "<<<", ""):
                raise RewriteError(line, "'<<<' without a matching '>>>'")
            p += 1
        close = p
        if close == chevron + 1:
            raise RewriteError(line, "empty launch configuration '<<<>>>': "
                               "write <<<grid, block[, shared_bytes[, stream]]>>>")
        if self.text(seq, close + 1) != "(":
            raise RewriteError(self.line(seq, close),
                               "expected '(' with the kernel's arguments after '>>>'")
        args_close = self.match_forward(seq, close + 1)
        has_args = args_close > close + 2
        self.prefix[seq[start]] = self.prefix.get(seq[start], "") + LAUNCH
        self.replace[seq[chevron]] = ", " + CONFIG
        self.replace[seq[close]] = "}"
        self.replace[seq[close + 1]] = ", " if has_args else ""

    # ---- printf
    def rewrite_printf(self, seq, p):
        if self.text(seq, p + 1) != "(":
            return  # not a call: format(printf, 1, 2), &printf
        before = self.text(seq, p - 1)
        if before in (".", "->", "int"):
            return  # a member, or a declaration of printf
        if before == "::":
            qualifier = self.text(seq, p - 2)
            if qualifier == "std":
                self.replace[seq[p - 2]] = ""
            elif self.is_name(seq, p - 2) or qualifier == ">":
                return  # another namespace's or class's printf
            self.replace[seq[p - 1]] = ""
        self.replace[seq[p]] = PRINTF

    # ---- __shared__
    def _namespace_braces(self):
        """Indices of the `{` tokens that open a namespace or an extern "C" block."""
        result = set()
        seq = self.code.get(0, [])
        for p, index in enumerate(seq):
            if self.tokens[index].text != "{":
                continue
            q = p - 1
            while q >= 0 and self.text(seq, q) not in (";", "{", "}"):
                q -= 1
            head = [self.text(seq, k) for k in range(q + 1, p)]
            if head[:1] == ["inline"]:
                head = head[1:]
            if head[:1] == ["namespace"] or (
                    head[:1] == ["extern"] and len(head) == 2 and head[1].startswith('"')):
                result.add(index)
        return result

    def at_namespace_scope(self, group, index):
        if group != 0:
            return False  # a #define body: assumed to be used in a function
        open_braces = []
        for i in self.code[0]:
            if i >= index:
                break
            t = self.tokens[i].text
            if t == "{":
                open_braces.append(i)
            elif t == "}" and open_braces:
                open_braces.pop()
        return all(i in self.namespace_braces for i in open_braces)

    def declaration_bounds(self, seq, shared):
        p = shared - 1
        while p >= 0 and self.text(seq, p) not in (";", "{", "}", ":") and \
                self.tokens[seq[p]].kind != "define":
            if self.text(seq, p) in (")", "]"):
                p = self.match_back(seq, p)
            p -= 1
        first = p + 1
        p = shared + 1
        while True:
            t = self.text(seq, p)
            if t == ";":
                return first, p
            if t in ("=", "{"):
                raise RewriteError(self.line(seq, p), (
                    "an initialiser on a __shared__ variable: shared memory cannot be "
                    "initialised in its declaration; assign it in the kernel"))
            if t in ("(", "["):
                p = self.match_forward(seq, p)
            elif t in ("", "}", ")", "]"):
                raise RewriteError(self.line(seq, shared),
                                   "cannot find the ';' that ends this __shared__ declaration")
            p += 1

    def rewrite_shared(self, seq, shared):
        first, semicolon = self.declaration_bounds(seq, shared)
        line = self.line(seq, shared)

        def unclassifiable(why):
            return RewriteError(line, f"cannot classify this __shared__ declaration: {why}")

        # Storage and alignment specifiers out; what remains is TYPE and the declarators.
        words, extern, align, attributes = [], False, None, ""
        p = first
        while p < semicolon:
            t = self.text(seq, p)
            if t == "[" and self.text(seq, p + 1) == "[":  # [[attribute]]: kept, in front
                close = self.match_forward(seq, p)
                attributes += self.join(seq, range(p, close + 1)) + " "
                p = close + 1
                continue
            if t in ("__align__", "alignas"):
                if self.text(seq, p + 1) != "(":
                    raise unclassifiable(f"'{t}' without '('")
                close = self.match_forward(seq, p + 1)
                align = self.join(seq, range(p + 2, close))
                p = close + 1
                continue
            if t in STORAGE:
                extern = extern or t == "extern"
            else:
                words.append(p)
            p += 1
        parts = self.split_declarators(seq, words)
        if not all(parts):
            raise unclassifiable("an empty declarator")
        type_ps, name_p, dims = self.first_declarator(seq, parts[0], unclassifiable)
        base_ps = []
        angle = 0
        for q in type_ps:  # the type later declarators share: up to the first * or &
            t = self.text(seq, q)
            angle += t == "<"
            angle -= CLOSERS.get(t, 0) if angle else 0
            if angle == 0 and t in ("*", "&"):
                break
            base_ps.append(q)
        declarators = [(type_ps, name_p, dims)]
        for part in parts[1:]:
            k = 0
            while k < len(part) and self.text(seq, part[k]) in ("*", "&", "const", "volatile"):
                k += 1
            if k >= len(part) or not self.is_name(seq, part[k]):
                raise unclassifiable("a declarator that is not NAME[DIMS]")
            extra = part[:k]
            declarators.append((base_ps + extra, part[k], self.dims(seq, part[k + 1:],
                                                                     unclassifiable)))
        namespace_scope = self.at_namespace_scope(self.tokens[seq[shared]].group, seq[shared])
        pieces = []
        for type_ps, name_p, dims in declarators:
            full_type = self.join(seq, type_ps)
            plain_type = self.join(seq, [q for q in type_ps if self.text(seq, q) not in CV]) \
                if not any(self.text(seq, q) in ("*", "&") for q in type_ps) else full_type
            name = self.text(seq, name_p)
            if extern:
                if not dims or dims[0] != "[]":
                    raise unclassifiable("extern __shared__ must be an unsized array `T name[]`")
                rest = "".join(dims[1:])
                pieces.append(self.dynamic(full_type, name, rest, namespace_scope))
            else:
                if "[]" in dims:
                    raise unclassifiable(
                        "an array without a size must be `extern __shared__` (dynamic)")
                pieces.append(self.static(full_type, plain_type, name, "".join(dims), align,
                                          namespace_scope))
        pieces = [attributes + piece for piece in pieces]
        # One statement per declarator, each where its declarator began; the
        # line breaks inside the declaration stay where they were.
        begin, end = seq[first], seq[semicolon] + 1
        if any(token.group != self.tokens[begin].group for token in self.tokens[begin:end]):
            raise unclassifiable("a preprocessor line inside the declaration")
        # Each statement goes on the line of its declarator's name.
        starts = [begin] + [seq[part[0] - 1] for part in parts[1:]] + [end]
        out = ""
        for k, piece in enumerate(pieces):
            name = seq[declarators[k][1]]
            out += self.line_breaks(starts[k], name)
            if out and not out.endswith("\n"):
                out += " "
            out += piece + self.line_breaks(name, starts[k + 1])
        for index in range(begin, end):
            self.replace[index] = ""
        self.replace[begin] = out

    def split_declarators(self, seq, words):
        parts, current, angle = [], [], 0
        k = 0
        while k < len(words):
            p = words[k]
            t = self.text(seq, p)
            if t in ("(", "["):
                close = self.match_forward(seq, p)
                while k < len(words) and words[k] <= close:
                    current.append(words[k])
                    k += 1
                continue
            if t == "<":
                angle += 1
            elif t in CLOSERS and angle:
                angle = max(0, angle - CLOSERS[t])
            if t == "," and angle == 0:
                parts.append(current)
                current = []
            else:
                current.append(p)
            k += 1
        parts.append(current)
        return parts

    def first_declarator(self, seq, part, unclassifiable):
        """(type positions, name position, dims) of `TYPE NAME[D1]...`."""
        k, angle = 0, 0
        while k < len(part):
            t = self.text(seq, part[k])
            if t == "<":
                angle += 1
            elif t in CLOSERS and angle:
                angle = max(0, angle - CLOSERS[t])
            elif t in ("(", "[") and angle == 0:
                if t == "(" and self.text(seq, part[k - 1]) not in ("decltype", "sizeof"):
                    raise unclassifiable("only `TYPE NAME[DIMS]...` declarators are supported")
                if t == "[":
                    break
            if t in ("(", "["):
                close = self.match_forward(seq, part[k])
                while k < len(part) and part[k] < close:
                    k += 1
            k += 1
        if k < 2 or not self.is_name(seq, part[k - 1]):
            raise unclassifiable("expected `TYPE NAME[DIMS]`")
        return part[:k - 1], part[k - 1], self.dims(seq, part[k:], unclassifiable)

    def dims(self, seq, ps, unclassifiable):
        result, k = [], 0
        while k < len(ps):
            if self.text(seq, ps[k]) != "[":
                raise unclassifiable(f"unexpected '{self.text(seq, ps[k])}' after the name")
            close = self.match_forward(seq, ps[k])
            inner = [p for p in ps if ps[k] < p < close]
            result.append("[" + self.join(seq, inner) + "]")
            k += len(inner) + 2
        return result

    def static(self, full_type, plain_type, name, dims, align, namespace_scope):
        align = f", {align}" if align else ""
        if namespace_scope:
            return (f"[[maybe_unused]] static {NAMESPACE_STATIC}<{full_type}{dims}, "
                    f"decltype([] {{}}){align}> {name};")
        declarator = f" (&{name}){dims}" if dims else f"& {name}"
        return f"{full_type}{declarator} = {STATIC_SHARED}<{plain_type}{dims}{align}>([] {{}});"

    def dynamic(self, full_type, name, rest, namespace_scope):
        if namespace_scope:
            return f"[[maybe_unused]] static {NAMESPACE_DYNAMIC}<{full_type}{rest}> {name};"
        if rest:
            return (f"{full_type} (*const {name}){rest} = "
                    f"static_cast<{full_type} (*){rest}>({DYNAMIC_SHARED});")
        return f"{full_type}* const {name} = static_cast<{full_type}*>({DYNAMIC_SHARED});"

    # ---- __constant__ and __device__ variables
    def variable_declaration(self, seq, at):
        """(first, semicolon) of the declaration around `at`, initialisers allowed."""
        p = at - 1
        while p >= 0 and self.text(seq, p) not in (";", "{", "}", ":"):
            if self.text(seq, p) in (")", "]"):
                p = self.match_back(seq, p)
            p -= 1
        first = p + 1
        p = at + 1
        while True:
            t = self.text(seq, p)
            if t == ";":
                return first, p
            if t in ("(", "[", "{"):
                p = self.match_forward(seq, p)
            elif t in ("", "}", ")", "]"):
                return first, None
            p += 1

    def split_top_level(self, seq, ps, separator):
        """`ps` split at the top-level tokens `separator` (brackets and templates skipped)."""
        parts, current, angle, k = [], [], 0, 0
        while k < len(ps):
            t = self.text(seq, ps[k])
            if t in ("(", "[", "{"):
                close = self.match_forward(seq, ps[k])
                while k < len(ps) and ps[k] <= close:
                    current.append(ps[k])
                    k += 1
                continue
            if t == "<":
                angle += 1
            elif t in CLOSERS and angle:
                angle = max(0, angle - CLOSERS[t])
            if t == separator and angle == 0:
                parts.append(current)
                current = []
            else:
                current.append(ps[k])
            k += 1
        parts.append(current)
        return parts

    def rewrite_constant(self, seq, at):
        line = self.line(seq, at)
        if not self.at_namespace_scope(0, seq[at]):
            raise RewriteError(line, "a __constant__ variable must be declared at namespace "
                               "scope (as nvcc requires)")
        first, semicolon = self.variable_declaration(seq, at)
        if semicolon is None:
            raise RewriteError(line, "cannot find the ';' that ends this __constant__ declaration")

        def unclassifiable(why):
            return RewriteError(line, f"cannot classify this __constant__ declaration: {why}")

        words, align = [], None
        p = first
        while p < semicolon:
            t = self.text(seq, p)
            if t in ("__align__", "alignas"):
                if self.text(seq, p + 1) != "(":
                    raise unclassifiable(f"'{t}' without '('")
                close = self.match_forward(seq, p + 1)
                align = self.join(seq, range(p + 2, close))
                p = close + 1
                continue
            if t == "extern":
                raise RewriteError(line, "extern __constant__ needs relocatable device code "
                                   "(nvcc -rdc), which the emulator does not model: define the "
                                   "variable in the file whose kernels read it")
            if t not in ("static", "__constant__", "__device__", "inline"):
                words.append(p)
            p += 1
        parts = self.split_top_level(seq, words, ",")
        if not all(parts):
            raise unclassifiable("an empty declarator")
        declarators = []
        for k, part in enumerate(parts):
            init = None
            pieces = self.split_top_level(seq, part, "=")
            if len(pieces) == 2:
                part, init = pieces[0], self.join(seq, pieces[1])
            elif part and self.text(seq, part[-1]) == "}":
                opener = self.match_back(seq, part[-1])
                inner = [q for q in part if q > opener and q < part[-1]]
                init = "{" + self.join(seq, inner) + "}"
                part = [q for q in part if q < opener]
            if k == 0:
                type_ps, name_p, dims = self.constant_declarator(seq, part, unclassifiable)
                base = type_ps
            else:
                if not part or not self.is_name(seq, part[0]):
                    raise unclassifiable("a declarator that is not NAME[DIMS]")
                type_ps, name_p, dims = base, part[0], self.dims(seq, part[1:], unclassifiable)
            if "[]" in dims:
                raise unclassifiable("an array without a size")
            declarators.append((type_ps, name_p, "".join(dims), init))
        out = ""
        begin, end = seq[first], seq[semicolon] + 1
        for type_ps, name_p, dims, init in declarators:
            plain = self.join(seq, [q for q in type_ps if self.text(seq, q) not in CV])
            name = self.text(seq, name_p)
            extra = f", {align}" if align else ""
            value = f", {init}" if init is not None else ""
            out += (f"[[maybe_unused]] static {CONSTANT}<{plain}{dims}, decltype([] {{}}){extra}> "
                    f"{name}{{\"{name}\", __FILE__, __LINE__{value}}}; ")
        breaks = self.line_breaks(begin, end)
        for index in range(begin, end):
            self.replace[index] = ""
        self.replace[begin] = out.rstrip() + breaks

    def constant_declarator(self, seq, part, unclassifiable):
        k = 0
        while k < len(part) and self.text(seq, part[k]) != "[":
            if self.text(seq, part[k]) in ("(", "*", "&"):
                if self.text(seq, part[k]) == "(" and self.text(seq, part[k - 1]) in (
                        "decltype", "sizeof"):
                    k = self.match_forward_in(seq, part, k)
                    continue
                if self.text(seq, part[k]) == "(":
                    raise unclassifiable("only `TYPE NAME[DIMS]` declarators are supported")
            k += 1
        if k < 2 or not self.is_name(seq, part[k - 1]):
            raise unclassifiable("expected `TYPE NAME[DIMS]`")
        return part[:k - 1], part[k - 1], self.dims(seq, part[k:], unclassifiable)

    def match_forward_in(self, seq, part, k):
        close = self.match_forward(seq, part[k])
        while k < len(part) and part[k] <= close:
            k += 1
        return k

    def register_device_variable(self, seq, at):
        """A `__device__` variable at namespace scope becomes a symbol the
        emulator's cudaMemcpyToSymbol & co accept; functions are left alone."""
        if not self.at_namespace_scope(0, seq[at]):
            return
        first, semicolon = self.variable_declaration(seq, at)
        if semicolon is None:
            return
        texts = [self.text(seq, q) for q in range(first, semicolon)]
        if any(t in ("__shared__", "__constant__", "extern", "template", "typedef", "using",
                     "__global__") for t in texts):
            return
        names = []
        for part in self.split_top_level(seq, list(range(first, semicolon)), ","):
            head = self.split_top_level(seq, part, "=")[0]
            k = 0
            while k < len(head) and self.text(seq, head[k]) not in ("[", "(", "{"):
                k += 1
            if k < len(head) and self.text(seq, head[k]) == "(":
                return  # a function
            if k == 0 or not self.is_name(seq, head[k - 1]):
                return
            names.append(self.text(seq, head[k - 1]))
        registration = "".join(
            f" [[maybe_unused]] static const bool cudalab_device_symbol_{name} = "
            f"{DEVICE_SYMBOL}(::std::addressof({name}), sizeof({name}), \"{name}\");"
            for name in names)
        index = seq[semicolon]
        self.replace[index] = self.replace.get(index, ";") + registration

    # ---- __cluster_dims__
    def rewrite_cluster_dims(self, seq, at):
        """`__cluster_dims__(X[, Y[, Z]])` on a kernel is removed, and the kernel's
        body starts by taking the address of a variable (cudalab/emu/cluster_launch.hpp)
        whose initialiser registers the kernel's cluster shape: taking it instantiates
        the variable with the kernel, so a template kernel registers each of its
        instantiations. A declaration without a body only loses the attribute."""
        line = self.line(seq, at)
        if self.text(seq, at + 1) != "(":
            raise RewriteError(line, "expected '(' after __cluster_dims__")
        close = self.match_forward(seq, at + 1)
        dims = [self.join(seq, part)
                for part in self.split_top_level(seq, list(range(at + 2, close)), ",")]
        if not 1 <= len(dims) <= 3 or not all(dims):
            raise RewriteError(line, "__cluster_dims__ takes one to three constant dimensions "
                               "(x[, y[, z]]); a cluster shape chosen at launch is given with "
                               "cudaLaunchKernelEx's cudaLaunchAttributeClusterDimension")
        dims += ["1"] * (3 - len(dims))
        p = close + 1
        while not (self.is_name(seq, p) and self.text(seq, p + 1) == "("):
            if self.text(seq, p) in ("", ";", "{", "}", "="):
                raise RewriteError(line, "__cluster_dims__ is not on a kernel declaration")
            p += 1
        name = self.text(seq, p)
        q = self.match_forward(seq, p + 1) + 1
        while self.text(seq, q) not in ("", ";", "{"):
            q += 1
        for r in range(at, close + 1):
            self.replace[seq[r]] = ""
        if self.text(seq, q) != "{":
            return
        kernel = name + self.template_arguments_of(seq, at)
        registration = f" static_cast<void>(&{CLUSTER_DIMS}<&{kernel}, " + ", ".join(
            f"({d})" for d in dims) + ">);"
        self.replace[seq[q]] = self.replace.get(seq[q], "{") + registration

    # ---- every kernel: launchable from `void** args`
    def register_argument_launch(self, seq, at):
        """A `__global__` kernel with a body starts by taking the address of a
        variable (cudalab/emu/argument_launch.hpp) whose initialiser registers how
        to launch it from an array of argument pointers, as the cluster shape is
        registered (rewrite_cluster_dims). A declaration without a body is left alone."""
        p = at + 1
        while not (self.is_name(seq, p) and self.text(seq, p + 1) == "(" and
                   not KERNEL_ATTRIBUTE.fullmatch(self.text(seq, p))):
            t = self.text(seq, p)
            if t in ("", ";", "{", "}", "="):
                return  # not a function declaration: nothing to register
            if t in ("(", "["):
                p = self.match_forward(seq, p)
            p += 1
        name, open_paren = self.text(seq, p), p + 1
        close = self.match_forward(seq, open_paren)
        q = close + 1
        while self.text(seq, q) not in ("", ";", "{"):
            q += 1
        if self.text(seq, q) != "{":
            return
        template = self.template_arguments_of(seq, at, required=False)
        if template is None:
            return
        parameters = ", ".join(
            self.join(seq, self.split_top_level(seq, part, "=")[0])
            for part in self.split_top_level(seq, list(range(open_paren + 1, close)), ","))
        kernel = f"static_cast<void (*)({parameters})>(&{name}{template})"
        registration = f" static_cast<void>(&{ARGUMENT_LAUNCH}<{kernel}>);"
        self.replace[seq[q]] = self.replace.get(seq[q], "{") + registration

    def template_arguments_of(self, seq, at, required=True):
        """`<T, N, Ts...>` naming the parameters of the `template <...>` that the
        declaration around `at` starts with; "" if it is no template."""
        p = at - 1
        while p >= 0 and self.text(seq, p) not in (";", "{", "}"):
            t = self.text(seq, p)
            if t == ")":
                p = self.match_back(seq, p)
            elif t in CLOSERS:
                opener = self.match_angle_back(seq, p)
                if self.text(seq, opener - 1) == "template":
                    return self.parameter_names(seq, opener + 1, p, required)
                p = opener
            p -= 1
        return ""

    def parameter_names(self, seq, begin, end, required=True):
        """`<...>` naming the template parameters [begin, end); None where one is
        unnamed and not `required`."""
        names = []
        for part in self.split_top_level(seq, list(range(begin, end)), ","):
            head = self.split_top_level(seq, part, "=")[0]
            if not head or not self.is_name(seq, head[-1]) or len(head) < 2:
                if not required:
                    return None
                raise RewriteError(self.line(seq, begin), "a template kernel with "
                                   "__cluster_dims__ must name each of its template parameters")
            pack = any(self.text(seq, q) == "..." for q in head)
            names.append(self.text(seq, head[-1]) + ("..." if pack else ""))
        return "<" + ", ".join(names) + ">"

    def join(self, seq, ps):
        """The source text of the significant tokens `ps`, as written, on one line."""
        out, previous = "", None
        for p in ps:
            if previous is not None and (p != previous + 1 or seq[p] != seq[previous] + 1):
                out += " "
            out += self.text(seq, p)
            previous = p
        return out

    def line_breaks(self, begin, end):
        """The line breaks of tokens [begin, end) as they must appear in the output."""
        out = ""
        for token in self.tokens[begin:end]:
            breaks = token.text.count("\n")
            if breaks and token.kind != "newline":
                out += " \\\n" * breaks if token.group > 0 else "\n" * breaks
            elif breaks:
                out += "\n"
        return out

    # ---- builtin names in host code
    def device_bodies(self, seq):
        """(open, close) positions of the bodies of __global__/__device__
        functions and lambdas in `seq` (a `__device__` variable has none)."""
        bodies = []
        for p, index in enumerate(seq):
            if self.tokens[index].text not in ("__global__", "__device__"):
                continue
            q = p + 1
            while q < len(seq):
                t = self.text(seq, q)
                if t in (";", "=", ")", "]", "}"):
                    break
                if t in ("(", "["):
                    q = self.match_forward(seq, q)
                elif t == "{":
                    bodies.append((q, self.match_forward(seq, q)))
                    break
                q += 1
        return bodies

    def namespace_entities(self, seq):
        """(first, last) positions of each declaration or definition at
        namespace scope in group 0, the extent a host name is bracketed over."""
        entities, first, depth = [], None, 0
        for p, index in enumerate(seq):
            t = self.tokens[index].text
            if depth == 0 and (index in self.namespace_braces or t == "}"):
                first = None  # a namespace opens or closes: no entity spans it
                continue
            if first is None:
                first = p
            if t == "{":
                depth += 1
            elif t == "}":
                depth -= 1
                if depth == 0 and self.text(seq, p + 1) != ";":
                    entities.append((first, p))
                    first = None
            elif t == ";" and depth == 0:
                entities.append((first, p))
                first = None
        return entities

    def rewrite_host_builtin_names(self):
        seq = self.code.get(0, [])
        uses = [p for p, index in enumerate(seq) if self.tokens[index].text in BUILTINS]
        if not uses:
            return
        in_device = set()
        for open_, close in self.device_bodies(seq):
            in_device.update(range(open_, close + 1))
        host_uses = [p for p in uses if p not in in_device]
        for first, last in self.namespace_entities(seq):
            if not any(first <= p <= last for p in host_uses):
                continue
            for p in uses:
                if first <= p <= last and p in in_device and self.text(seq, p - 1) not in (
                        ".", "->", "::"):
                    self.replace[seq[p]] = BUILTIN_SPELLING + self.text(seq, p)
            undef = "".join(f'#pragma push_macro("{n}")\n#undef {n}\n' for n in BUILTINS)
            redo = "".join(f'#pragma pop_macro("{n}")\n' for n in BUILTINS)
            start, end = seq[first], seq[last]
            self.prefix[start] = (self.prefix.get(start, "") + "\n" + undef +
                                  f"#line {self.tokens[start].line}\n")
            self.replace[end] = (self.replace.get(end, self.tokens[end].text) + "\n" + redo +
                                 f"#line {self.tokens[end].line}\n")

    # ---- driver
    def run(self):
        self.rewrite_host_builtin_names()
        for group, seq in self.code.items():
            for p, index in enumerate(seq):
                t = self.tokens[index].text
                if t == "<<<":
                    self.rewrite_launch(seq, p)
                elif t == "__shared__":
                    self.rewrite_shared(seq, p)
                elif t == "__constant__" and group == 0:
                    self.rewrite_constant(seq, p)
                elif t == "__device__" and group == 0:
                    self.register_device_variable(seq, p)
                elif t == "printf":
                    self.rewrite_printf(seq, p)
                elif t == "__cluster_dims__":
                    self.rewrite_cluster_dims(seq, p)
                elif t == "__global__" and group == 0:
                    self.register_argument_launch(seq, p)
        return "".join(self.prefix.get(i, "") + self.replace.get(i, token.text)
                       for i, token in enumerate(self.tokens))


def rewrite(text, path):
    """The rewritten copy of `text`, read from `path` (absolute)."""
    quoted = str(path).replace("\\", "\\\\").replace('"', '\\"')
    return f'#line 1 "{quoted}"\n' + Rewriter(text).run()


def main(argv):
    if len(argv) != 3:
        print("usage: emu_rewrite.py IN OUT", file=sys.stderr)
        return 2
    source = pathlib.Path(argv[1]).resolve()
    target = pathlib.Path(argv[2])
    try:
        text = source.read_text(encoding="utf-8")
        result = rewrite(text, source)
    except RewriteError as error:
        print(f"{source}:{error.line}: error: {error.what}", file=sys.stderr)
        return 1
    except OSError as error:
        print(f"{source}: error: {error.strerror}", file=sys.stderr)
        return 1
    if not target.exists() or target.read_text(encoding="utf-8") != result:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(result, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
