# The pandas worker of run_pandas, and the reading of pandas code's syntax
# tree that the metrics use. It is embedded in the sample server and run as
#
#   python3 -I -c <this file> worker <config JSON>     a long-lived worker
#   python3 -I -c <this file> analyze                  read a JSON list of code
#                                                      texts on stdin, write
#                                                      their facts as a JSON list
#
# A worker imports pandas and loads the datasets once, then serves requests:
# one JSON line on stdin, one JSON line back on file descriptor 3. Each
# request runs in a child forked for it, so every run starts from the same
# state (a fresh namespace, its own copy of the frames, no module changes
# left over by earlier code) with its own limits: a time limit (the worker
# kills the child and its process group), CPU time, address space and file
# size limits, a fresh working directory, and no network. Only the child
# ever runs or parses the code.

import ast
import json
import os
import sys

# ---------------------------------------------------------------------------
# Reading code: columns, filters, group-by keys, sort keys and order, limits,
# joins and aggregations, from Python's own syntax tree.

AGGREGATIONS = {
    "mean", "average", "sum", "max", "min", "count", "size", "median", "std", "var", "nunique", "prod",
    "first", "last", "quantile", "mode", "describe", "cumsum", "cummax", "cummin", "idxmax", "idxmin",
    "value_counts", "len",
}
FILTER_METHODS = {
    "isin": "in", "between": "between", "contains": "contains", "startswith": "startswith",
    "endswith": "endswith", "match": "match", "fullmatch": "match", "isna": "isna", "isnull": "isna",
    "notna": "notna", "notnull": "notna", "dropna": "notna", "eq": "==", "ne": "!=", "gt": ">", "ge": ">=",
    "lt": "<", "le": "<=",
}
COMPARISONS = {
    ast.Gt: ">", ast.GtE: ">=", ast.Lt: "<", ast.LtE: "<=", ast.Eq: "==", ast.NotEq: "!=",
    ast.In: "in", ast.NotIn: "not in", ast.Is: "is", ast.IsNot: "is not",
}
FLIPPED = {">": "<", ">=": "<=", "<": ">", "<=": ">="}
# Attributes that pass the column of what they are read on through.
ACCESSORS = {"str", "dt", "cat", "loc", "iloc", "at", "iat", "values", "array", "index", "T", "plot"}
# Attributes that are no column: the frame's own.
FRAME_ATTRIBUTES = {"shape", "columns", "dtypes", "empty", "ndim", "size", "names", "axes"}
# Methods whose result carries none of the columns of what they are called on.
RESHAPING = {"merge", "join", "concat", "groupby", "pivot_table", "crosstab", "size", "value_counts", "count",
             "reset_index", "describe"}
MODULES = {"pd", "pandas", "np", "numpy", "math", "statistics", "json", "datetime", "re"}
COLUMN_KEYWORDS = {"by", "on", "left_on", "right_on", "columns", "values", "index", "subset", "column",
                   "x", "y", "hue", "key", "items", "id_vars", "value_vars"}
PLOTS = {"plot", "hist", "bar", "barh", "scatter", "pie", "boxplot", "histplot", "barplot", "lineplot",
         "scatterplot", "subplots", "figure", "heatmap", "countplot"}


def analyze(code):
    """Returns the facts of code as a dict, or parsed False with the error."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, MemoryError, RecursionError) as e:
        return {"parsed": False, "syntax_error": "%s: %s" % (type(e).__name__, e)}
    try:
        return Reader(tree).facts()
    except RecursionError:
        return {"parsed": True, "syntax_error": "RecursionError: the code is nested too deeply to read"}


class Reader:
    def __init__(self, tree):
        self.tree = tree
        self.assigned = {}  # variable -> the expression last assigned to it
        self.derived = {}  # column made by the code -> the expression it was made from
        self.columns = []
        self.operations = []
        self.filters = []
        self.group_bys = []
        self.sorts = []
        self.limits = []
        self.joins = []
        self.aggregations = []
        self.values = set()  # ids of nodes that are compared values, not column names
        self.skip = set()  # ids of string nodes that are no code (docstrings, printed text)

    def facts(self):
        for node in ast.walk(self.tree):
            self.collect_assignment(node)
        for node in ast.walk(self.tree):
            self.mark_text(node)
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Compare):
                self.compare(node, query=False)
            elif isinstance(node, ast.Call):
                self.call(node)
            elif isinstance(node, ast.Subscript):
                self.subscript(node)
        for node in ast.walk(self.tree):
            self.column_use(node)
        return {
            "parsed": True, "columns": self.columns, "operations": self.operations, "filters": self.filters,
            "group_bys": self.group_bys, "sorts": self.sorts, "limits": self.limits, "joins": self.joins,
            "aggregations": self.aggregations,
        }

    # -- names and columns ---------------------------------------------------

    def collect_assignment(self, node):
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)) and node.value is not None:
            targets, value = [node.target], node.value
        elif isinstance(node, ast.NamedExpr):
            targets, value = [node.target], node.value
        else:
            return
        for target in targets:
            if isinstance(target, ast.Name):
                self.assigned[target.id] = value
            elif isinstance(target, ast.Subscript):
                for name in self.strings(target.slice):
                    self.derived[name] = value
            elif isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, (ast.Tuple, ast.List)):
                for t, v in zip(target.elts, value.elts):
                    if isinstance(t, ast.Name):
                        self.assigned[t.id] = v
        # df.assign(revenue=...) makes columns too.
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "assign":
            for kw in value.keywords:
                if kw.arg:
                    self.derived[kw.arg] = kw.value

    def mark_text(self, node):
        # Docstrings and what is printed or formatted are text, not code.
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            self.skip.add(id(node.value))
        elif isinstance(node, ast.JoinedStr):
            for sub in ast.walk(node):
                self.skip.add(id(sub))
        elif isinstance(node, ast.Call) and self.func_name(node) in ("print", "format"):
            for arg in node.args:
                if isinstance(arg, ast.Constant):
                    self.skip.add(id(arg))

    @staticmethod
    def strings(node):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return [node.value]
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            return [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
        return []

    def selected(self, node, seen=None):
        """The columns an expression carries: df['a'] is a, df.a is a,
        df['a'].mean() is a, pd.cut(df['age']) is age, a variable is what was
        assigned to it."""
        seen = set() if seen is None else seen
        if id(node) in seen:
            return []
        seen.add(id(node))
        if isinstance(node, ast.Subscript):
            base = node.value
            if isinstance(base, ast.Attribute) and base.attr in ("loc", "iloc", "at", "iat"):
                if isinstance(node.slice, ast.Tuple) and len(node.slice.elts) == 2:
                    cols = self.strings(node.slice.elts[1])
                    if cols:
                        return cols
                return self.selected(base.value, seen)
            cols = self.strings(node.slice)
            return cols if cols else self.selected(base, seen)
        if isinstance(node, ast.Attribute):
            if node.attr in ACCESSORS:
                return self.selected(node.value, seen)
            if node.attr in FRAME_ATTRIBUTES or self.is_module(node.value):
                return []
            return [node.attr]
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute):
                if func.attr in RESHAPING:
                    return []
                if self.is_module(func.value):
                    return self.selected(node.args[0], seen) if node.args else []
                return self.selected(func.value, seen)
            if isinstance(func, ast.Name) and node.args:
                return self.selected(node.args[0], seen)
            return []
        if isinstance(node, ast.Name):
            value = self.assigned.get(node.id)
            return self.selected(value, seen) if value is not None else []
        if isinstance(node, ast.BinOp):
            return unique(self.selected(node.left, seen) + self.selected(node.right, seen))
        if isinstance(node, ast.UnaryOp):
            return self.selected(node.operand, seen)
        if isinstance(node, (ast.BoolOp, ast.List, ast.Tuple, ast.Compare)):
            parts = node.values if isinstance(node, ast.BoolOp) else (
                node.elts if not isinstance(node, ast.Compare) else [node.left] + node.comparators)
            out = []
            for v in parts:
                out += self.selected(v, seen)
            return unique(out)
        return []

    def with_sources(self, columns, seen=None):
        """Columns, each followed by the columns a column the code made was
        made from (age_group -> age)."""
        seen = set() if seen is None else seen
        out = []
        for c in columns:
            out.append(c)
            if c in self.derived and c not in seen:
                seen.add(c)
                out += self.with_sources(self.selected(self.derived[c]), seen)
        return unique(out)

    def keys(self, node):
        """Columns named by a key argument: 'a', ['a', 'b'], df['a'], or an
        expression of columns (pd.cut(df['age'], ...))."""
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return self.with_sources([node.value])
        if isinstance(node, (ast.List, ast.Tuple)):
            out = []
            for e in node.elts:
                out += self.keys(e)
            return unique(out)
        if isinstance(node, ast.Name) and node.id in self.assigned:
            value = self.assigned[node.id]
            if isinstance(value, (ast.Constant, ast.List, ast.Tuple)):
                return self.keys(value)
        return self.with_sources(self.selected(node))

    @staticmethod
    def is_module(node):
        return isinstance(node, ast.Name) and node.id in MODULES

    @staticmethod
    def func_name(call):
        if isinstance(call.func, ast.Attribute):
            return call.func.attr
        if isinstance(call.func, ast.Name):
            return call.func.id
        return ""

    def literal(self, node, seen=None):
        """The literal values an expression holds, as text: numbers, strings,
        the items of lists, what a variable was set to."""
        seen = set() if seen is None else seen
        if id(node) in seen:
            return []
        seen.add(id(node))
        if isinstance(node, ast.Constant) and not isinstance(node.value, bool) and node.value is not None:
            self.values.add(id(node))
            return [text(node.value)]
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
            self.values.add(id(node.operand))
            return ["-" + text(node.operand.value)]
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            out = []
            for e in node.elts:
                out += self.literal(e, seen)
            return out
        if isinstance(node, ast.Name) and node.id in self.assigned:
            return self.literal(self.assigned[node.id], seen)
        if isinstance(node, ast.BinOp):  # 0.9 * budget holds 0.9
            return self.literal(node.left, seen) + self.literal(node.right, seen)
        if isinstance(node, ast.Call) and (self.is_module(getattr(node.func, "value", None)) or
                                            isinstance(node.func, ast.Name)):
            out = []
            for a in node.args:
                out += self.literal(a, seen)
            return out
        return []

    # -- filters -------------------------------------------------------------

    def compare(self, node, query):
        left = node.left
        for op, right in zip(node.ops, node.comparators):
            name = COMPARISONS.get(type(op), "?")
            lcols, rcols = self.compared(left, query), self.compared(right, query)
            if lcols and not rcols:
                self.add_filter(lcols, name, self.literal(right))
            elif rcols and not lcols:
                self.add_filter(rcols, FLIPPED.get(name, name), self.literal(left))
            elif lcols and rcols:
                self.add_filter(unique(lcols + rcols), name, self.literal(left) + self.literal(right))
            left = right

    def compared(self, node, query):
        if query:
            names = [n.id for n in ast.walk(node) if isinstance(n, ast.Name) and not n.id.startswith(LOCAL)]
            if names:
                return self.with_sources(unique(names))
        return self.with_sources(self.selected(node))

    def add_filter(self, columns, op, values):
        self.filters.append({"columns": columns, "op": op, "values": values})

    def query(self, call):
        if not call.args or not isinstance(call.args[0], ast.Constant) or not isinstance(call.args[0].value, str):
            return
        self.skip.add(id(call.args[0]))
        expr = call.args[0].value
        expr, names = backticks(expr)
        expr = expr.replace("@", LOCAL)
        try:
            tree = ast.parse(expr.strip(), mode="eval")
        except (SyntaxError, ValueError):
            return
        for node in ast.walk(tree):
            if isinstance(node, ast.Name):
                if node.id.startswith(LOCAL):
                    local = node.id[len(LOCAL):]
                    if local in self.assigned:
                        self.assigned[node.id] = self.assigned[local]
                else:
                    node.id = names.get(node.id, node.id)
                    self.add_column(node.id)
        for node in ast.walk(tree):
            if isinstance(node, ast.Compare):
                self.compare(node, query=True)
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in FILTER_METHODS:
                cols = [n.id for n in ast.walk(node.func.value) if isinstance(n, ast.Name)]
                self.add_filter(cols, FILTER_METHODS[node.func.attr], self.call_values(node))

    def call_values(self, call):
        out = []
        for a in call.args:
            out += self.literal(a)
        for kw in call.keywords:
            if kw.arg in ("pat", "values", "left", "right", "other"):
                out += self.literal(kw.value)
        return out

    # -- calls ---------------------------------------------------------------

    def call(self, node):
        name = self.func_name(node)
        if not name:
            return
        self.operations.append(name)
        func = node.func
        receiver = func.value if isinstance(func, ast.Attribute) else None
        kw = {k.arg: k.value for k in node.keywords if k.arg}

        if name == "query" and receiver is not None:
            self.query(node)
        elif name in FILTER_METHODS and receiver is not None and not self.is_module(receiver):
            cols = self.with_sources(self.selected(receiver))
            if name == "dropna":
                cols = self.keys(kw["subset"]) if "subset" in kw else cols
            if cols or name != "dropna":
                self.add_filter(cols, FILTER_METHODS[name], self.call_values(node))

        if name == "groupby" and receiver is not None:
            keys = []
            for a in node.args[:1] + ([kw["by"]] if "by" in kw else []):
                keys += self.keys(a)
            if "level" in kw and not keys:
                keys = ["(index)"]
            self.group_bys.append({"method": name, "keys": unique(keys)})
        elif name == "pivot_table":
            keys = []
            for k in ("index", "columns"):
                if k in kw:
                    keys += self.keys(kw[k])
            self.group_bys.append({"method": name, "keys": unique(keys)})
            funcs = self.function_names(kw["aggfunc"]) if "aggfunc" in kw else ["mean"]
            cols = self.keys(kw["values"]) if "values" in kw else []
            for f in funcs:
                self.add_aggregation(f, cols)
        elif name == "crosstab":
            keys = []
            for a in node.args[:2]:
                keys += self.keys(a)
            self.group_bys.append({"method": name, "keys": unique(keys)})
            self.add_aggregation("count", [])
        elif name == "value_counts" and receiver is not None:
            subset = kw.get("subset")
            if subset is None and node.args and not isinstance(node.args[0], ast.Constant) or \
                    node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
                subset = node.args[0]  # DataFrame.value_counts(subset); a Series' first argument is a bool
            keys = self.keys(subset) if subset is not None else self.with_sources(self.selected(receiver))
            self.group_bys.append({"method": name, "keys": keys})
            self.add_aggregation("count", keys)
            if not (isinstance(kw.get("sort"), ast.Constant) and kw["sort"].value is False):
                self.add_sort(name, [], constant_bool(kw.get("ascending"), False, invert=False), 0)
        elif name == "resample":
            self.group_bys.append({"method": name, "keys": self.keys(kw["on"]) if "on" in kw else ["(index)"]})

        if name == "sort_values" and receiver is not None:
            by = kw.get("by", node.args[0] if node.args else None)
            keys = self.keys(by) if by is not None else self.with_sources(self.selected(receiver))
            self.add_sort(name, keys, constant_bool(kw.get("ascending"), True), 0)
        elif name == "sort_index" and receiver is not None:
            self.add_sort(name, ["(index)"], constant_bool(kw.get("ascending"), True), 0)
        elif name in ("nlargest", "nsmallest") and receiver is not None and not self.is_module(receiver):
            n = constant_int(node.args[0] if node.args else kw.get("n"), 5)
            by = node.args[1] if len(node.args) > 1 else kw.get("columns")
            keys = self.keys(by) if by is not None else self.with_sources(self.selected(receiver))
            self.add_sort(name, keys, name == "nsmallest", n)
            self.add_aggregation("max" if name == "nlargest" else "min", keys)
        elif name == "sorted" and receiver is None and node.args:
            reverse = constant_bool(kw.get("reverse"), False)
            self.add_sort(name, self.with_sources(self.selected(node.args[0])),
                          None if reverse is None else not reverse, 0)

        if name in ("head", "tail") and receiver is not None:
            self.limits.append({"method": name, "n": constant_int(node.args[0] if node.args else kw.get("n"), 5)})

        if name == "concat" or name in ("merge", "join") and receiver is not None and self.is_frame_like(receiver):
            keys = []
            for k in ("on", "left_on", "right_on"):
                if k in kw:
                    keys += self.keys(kw[k])
            if name == "merge" and self.is_module(receiver) and len(node.args) > 2:
                keys += self.keys(node.args[2])
            self.joins.append({"method": name, "keys": unique(keys)})

        if name in AGGREGATIONS and not (name == "count" and receiver is not None and self.is_string_method(receiver)):
            cols = self.selected(receiver) if receiver is not None and not self.is_module(receiver) else (
                self.selected(node.args[0]) if node.args else [])
            self.add_aggregation("count" if name == "len" else name, self.with_sources(cols))
        if name in ("agg", "aggregate", "transform", "apply"):
            for f, cols in self.aggregation_arguments(node, receiver):
                self.add_aggregation(f, cols)
                self.operations.append(f)

    def is_frame_like(self, node):
        # "".join(...) and os.path.join(...) join no tables.
        if isinstance(node, ast.Constant):
            return False
        if isinstance(node, ast.Attribute) and node.attr == "path":
            return False
        return not (isinstance(node, ast.Name) and node.id in ("os", "str"))

    def is_string_method(self, receiver):
        return isinstance(receiver, ast.Attribute) and receiver.attr == "str"

    def add_sort(self, method, keys, ascending, n):
        self.sorts.append({"method": method, "keys": keys, "ascending": ascending, "n": n})

    def add_aggregation(self, func, columns):
        self.aggregations.append({"func": func, "columns": columns})

    def function_names(self, node):
        """Aggregation names given as strings, lists of strings, np.mean or
        builtins."""
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            self.skip.add(id(node))
            return [node.value]
        if isinstance(node, (ast.List, ast.Tuple)):
            out = []
            for e in node.elts:
                out += self.function_names(e)
            return out
        if isinstance(node, ast.Attribute) and self.is_module(node.value):
            return [node.attr]
        if isinstance(node, ast.Name) and node.id in AGGREGATIONS:
            return [node.id]
        return []

    def aggregation_arguments(self, node, receiver):
        base = self.selected(receiver) if receiver is not None else []
        out = []
        for a in node.args:
            if isinstance(a, ast.Dict):
                for k, v in zip(a.keys, a.values):
                    cols = self.strings(k) if k is not None else base
                    out += [(f, cols) for f in self.function_names(v)]
            else:
                out += [(f, base) for f in self.function_names(a)]
        for kw in node.keywords:
            v = kw.value
            if kw.arg is None:
                continue
            if kw.arg == "func":
                out += [(f, base) for f in self.function_names(v)]
            elif isinstance(v, ast.Tuple) and len(v.elts) == 2:  # total=('salary', 'sum')
                out += [(f, self.strings(v.elts[0])) for f in self.function_names(v.elts[1])]
            elif isinstance(v, ast.Call) and self.func_name(v) == "NamedAgg":
                named = {k.arg: k.value for k in v.keywords}
                args = list(v.args) + [None, None]
                col = named.get("column", args[0])
                func = named.get("aggfunc", args[1])
                if func is not None:
                    out += [(f, self.strings(col) if col is not None else []) for f in self.function_names(func)]
        return out

    def subscript(self, node):
        # df.iloc[:5], df[:5], df.iloc[0]: the first rows.
        base, s = node.value, node.slice
        if self.attr_is(base, "str"):
            return  # a slice of each string, not of the rows
        if isinstance(s, ast.Slice) and s.step is None:
            lower = constant_int(s.lower, 0) if s.lower is not None else 0
            if s.upper is not None and lower == 0:
                n = constant_int(s.upper, -1)
                if n > 0:
                    self.limits.append({"method": "iloc" if self.attr_is(base, "iloc") else "slice", "n": n})
            elif s.upper is None and s.lower is not None and lower < 0:
                self.limits.append({"method": "tail", "n": -lower})
        elif self.attr_is(base, "iloc") and isinstance(s, ast.Constant) and isinstance(s.value, int):
            self.limits.append({"method": "iloc" if s.value >= 0 else "tail", "n": 1})
        elif self.attr_is(base, "iloc") and isinstance(s, ast.Tuple) and s.elts and isinstance(s.elts[0], ast.Slice):
            self.subscript(ast.Subscript(value=base, slice=s.elts[0]))

    @staticmethod
    def attr_is(node, attr):
        return isinstance(node, ast.Attribute) and node.attr == attr

    # -- column use ----------------------------------------------------------

    def column_use(self, node):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if id(node) not in self.skip and id(node) not in self.values:
                self.add_column(node.value)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
            if node.attr in ACCESSORS or node.attr in FRAME_ATTRIBUTES or self.is_module(node.value):
                if node.attr in FRAME_ATTRIBUTES and not self.is_called(node):
                    self.operations.append(node.attr)
                return
            if not self.is_called(node):
                self.add_column(node.attr)
        elif isinstance(node, ast.Name) and node.id in ("plt", "sns"):
            self.operations.append(node.id)

    def is_called(self, attr):
        if not hasattr(self, "_callees"):
            self._callees = {id(n.func) for n in ast.walk(self.tree) if isinstance(n, ast.Call)}
        return id(attr) in self._callees

    def add_column(self, name):
        if name and name not in self.columns and len(name) <= 200:
            self.columns.append(name)


LOCAL = "__local_"


def backticks(expr):
    """Replaces `a column` in a query string by a name, and returns the names."""
    names, out, i = {}, [], 0
    while True:
        start = expr.find("`", i)
        end = expr.find("`", start + 1) if start >= 0 else -1
        if start < 0 or end < 0:
            out.append(expr[i:])
            return "".join(out), names
        name = "__column_%d" % len(names)
        names[name] = expr[start + 1:end]
        out.append(expr[i:start] + name)
        i = end + 1


def constant_bool(node, default, invert=False):
    """The value of a constant bool argument, the first of a list of them, the
    default when absent, or None when it cannot be read."""
    if node is None:
        return default
    if isinstance(node, (ast.List, ast.Tuple)) and node.elts:
        node = node.elts[0]
    if isinstance(node, ast.Constant) and isinstance(node.value, bool):
        return node.value
    return None


def constant_int(node, default):
    """The value of a constant int argument, the default when absent, or 0
    when it cannot be read."""
    if node is None:
        return default
    if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant) \
            and isinstance(node.operand.value, int):
        return -node.operand.value
    return 0


def text(value):
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return str(value)


def unique(items):
    out = []
    for i in items:
        if i not in out:
            out.append(i)
    return out


# ---------------------------------------------------------------------------
# The worker.

def worker(config):
    Worker(config).serve()


# Representative operations a spare child runs on a tiny frame while it
# waits: they copy the pages that pandas code touches, so that the code of
# a request runs as fast as in the worker itself.
WARM_UP = (
    lambda pd, w: w.groupby("a")["b"].mean().round(2).sort_values(ascending=False).to_string(),
    lambda pd, w: w.groupby(["a", "c"]).size().reset_index().to_string(),
    lambda pd, w: w.nlargest(2, "b")[["a", "b"]].to_string(),
    lambda pd, w: w[(w["a"] == "x") & (w["b"] > 1)].sort_values("b").head(2).to_string(),
    lambda pd, w: w.merge(w, on="a").agg({"b_x": "sum"}).to_string(),
    lambda pd, w: w["a"].value_counts().head(1).to_string(),
    lambda pd, w: w.query("b > 1 and a == 'x'").to_string(),
    lambda pd, w: pd.cut(w["c"], bins=[0, 1, 5]).astype(str).tolist(),
    lambda pd, w: pd.to_datetime(w["d"]).dt.to_period("M").astype(str).tolist(),
)


class Worker:
    def __init__(self, config):
        import resource
        import select
        import signal
        import time

        import numpy as np
        import pandas as pd

        self.config, self.np, self.pd = config, np, pd
        self.resource, self.select, self.signal, self.time = resource, select, signal, time
        self.frames = {}  # path -> (mtime, size, frame)
        self.spare = None  # a child forked ahead of the next request
        self.finished = []  # children done with, not yet reaped
        for path in config.get("preload", []):
            try:
                self.frame(path)
            except Exception:
                pass  # a broken file is reported when a run asks for it
        import gc
        import tempfile  # noqa: F401 (imported once here rather than in every run)
        gc.collect()
        gc.freeze()  # runs leave the worker's objects alone: fewer pages copied after fork
        block_network()
        self.die_with_parent = parent_death_signal()

    def frame(self, path):
        """Loads a dataset, again if its file changed; reports whether it did."""
        st = os.stat(path)
        known = self.frames.get(path)
        if known is not None and known[0] == st.st_mtime_ns and known[1] == st.st_size:
            return False
        self.frames[path] = (st.st_mtime_ns, st.st_size, self.pd.read_csv(path))
        return True

    def serve(self):
        replies = os.fdopen(3, "w", encoding="utf-8")
        self.spare = self.fork(warm=True)
        replies.write(json.dumps({"ready": True, "pid": os.getpid()}) + "\n")
        replies.flush()
        for line in sys.stdin:
            request = json.loads(line)
            done = None
            try:
                changed = [self.frame(p) for p in request["files"]]
            except Exception as e:
                reply = {"ok": False, "text": "could not load the dataset: %s: %s" % (type(e).__name__, e)}
            else:
                if any(changed):
                    self.discard_spare()
                reply, done = self.run(request)
            replies.write(json.dumps(reply, ensure_ascii=False) + "\n")
            replies.flush()
            if done:
                kill_group(done, self.signal)  # reaped later: the next run need not wait for its exit
                self.finished.append(done)
            if self.spare is None:
                self.spare = self.fork(warm=True)
            self.reap_finished(block=False)
        self.discard_spare()
        self.reap_finished(block=True)

    def reap_finished(self, block):
        for pid in list(self.finished):
            try:
                ended, _ = os.waitpid(pid, 0 if block else os.WNOHANG)
            except ChildProcessError:
                ended = pid
            if ended:
                self.finished.remove(pid)

    def discard_spare(self):
        if self.spare is not None:
            pid, requests, _ = self.spare
            os.close(requests)
            reap(pid, self.signal)
            self.spare = None

    def fork(self, warm):
        """Forks a child that waits for one request: (pid, request pipe,
        reply pipe)."""
        request_read, request_write = os.pipe()
        reply_read, reply_write = os.pipe()
        pid = os.fork()
        if pid == 0:
            status = 0
            try:
                os.close(request_write)
                os.close(reply_read)
                self.child(request_read, reply_write, warm)
            except BaseException:
                status = 1
            finally:
                os._exit(status)
        os.close(request_read)
        os.close(reply_write)
        return pid, request_write, reply_read

    def run(self, request):
        """Runs one request in the spare child and returns the reply, and the
        child's pid when it is still to be reaped (see reap)."""
        data = (json.dumps(request) + "\n").encode("utf-8", "replace")
        for attempt in (1, 2):
            if self.spare is None:
                self.spare = self.fork(warm=False)
            pid, requests, replies = self.spare
            self.spare = None
            try:
                write_all(requests, data)
                os.close(requests)
                break
            except OSError:  # the spare died: fork another
                os.close(requests)
                os.close(replies)
                reap(pid, self.signal)
                if attempt == 2:
                    raise
        time = self.time
        deadline = time.monotonic() + request["timeout"]
        chunks, timed_out = [], False
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                timed_out = True
                break
            ready, _, _ = self.select.select([replies], [], [], left)
            if not ready:
                continue
            chunk = os.read(replies, 1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
        os.close(replies)
        facts, result = None, None
        for line in b"".join(chunks).decode("utf-8", "replace").split("\n"):
            try:
                message = json.loads(line) if line else {}
            except ValueError:
                continue
            if "facts" in message:
                facts = message["facts"]
            elif "ok" in message:
                result = message
        reply = result or {"ok": False}
        reply["facts"] = facts
        if timed_out:
            reply.update(ok=False, timed_out=True, seconds=request["timeout"], cpu_seconds=0)
        elif result is None:
            # The child ended without a result: its status says how.
            reply["ended"] = describe_status(reap(pid, self.signal), self.signal)
            return reply, 0
        return reply, pid

    def child(self, requests, out, warm):
        os.setpgid(0, 0)
        self.die_with_parent()
        # The worker's channels are not the code's.
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.close(3)
        if warm:
            self.warm_up(requests)
        data = b""
        while not data.endswith(b"\n"):
            chunk = os.read(requests, 1 << 16)
            if not chunk:
                return  # discarded
            data += chunk
        os.close(requests)
        self.execute(json.loads(data), out)

    def warm_up(self, requests):
        pd = self.pd
        w = pd.DataFrame({"a": ["x", "y", "x"], "b": [1.0, 2.0, 3.0], "c": [1, 2, 3],
                          "d": ["2024-01-01", "2024-02-01", "2024-02-03"]})
        for step in WARM_UP:
            if self.select.select([requests], [], [], 0)[0]:
                return  # a request is waiting
            try:
                step(pd, w)
            except Exception:
                pass

    def execute(self, request, out):
        np, pd, time = self.np, self.pd, self.time
        work = request["dir"]
        printed = os.open(os.path.join(work, "printed.txt"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        errors = os.open(os.path.join(work, "stderr.txt"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(printed, 1)
        os.dup2(errors, 2)
        sys.stdout = open(1, "w", encoding="utf-8", errors="replace", closefd=False)
        sys.stderr = open(2, "w", encoding="utf-8", errors="replace", closefd=False)
        os.chdir(work)
        for name in ("HOME", "TMPDIR", "MPLCONFIGDIR"):
            os.environ[name] = work
        import tempfile
        tempfile.tempdir = work

        limit_resources(self.resource, self.config)
        code = request["code"]
        send(out, {"facts": analyze(code)})

        cap = request["cap"]
        try:
            compiled = compile(code, "<code>", "exec")
        except (SyntaxError, ValueError) as e:
            lineno = getattr(e, "lineno", None)
            where = "  line %s: %s\n" % (lineno, (getattr(e, "text", "") or "").rstrip()) if lineno else ""
            message = "%s%s: %s (line %s)" % (where, type(e).__name__, getattr(e, "msg", e), lineno)
            return send(out, finished(False, message, cap, 0, 0))
        import builtins
        scope = {"__name__": "__main__", "__builtins__": builtins, "pd": pd, "np": np, "json": json}
        for i, path in enumerate(request["files"]):
            scope["df" if i == 0 else "df%d" % (i + 1)] = self.frames[path][2]
        # The CPU clock of the thread that runs the code: the process's clock
        # only advances at scheduler ticks once RLIMIT_CPU is set.
        wall, cpu = time.perf_counter(), time.thread_time()
        try:
            exec(compiled, scope)
        except BaseException as e:
            wall, cpu = time.perf_counter() - wall, time.thread_time() - cpu
            return send(out, finished(False, describe(e, code), cap, wall, cpu))
        wall, cpu = time.perf_counter() - wall, time.thread_time() - cpu
        if "result" not in scope:
            message = "NameError: the code did not assign the answer to a variable named result"
            return send(out, finished(False, message, cap, wall, cpu))
        try:
            rendered = render(scope["result"], pd, np)
        except BaseException as e:
            return send(out, finished(False, "while rendering result: " + describe(e, code), cap, wall, cpu))
        sys.stdout.flush()
        send(out, finished(True, rendered, cap, wall, cpu))
        os.close(out)  # the worker reads the end of the channel now, not at the exit


def reap(pid, signal):
    """Kills what is left of a run (the child and its process group) and
    returns the child's exit status."""
    kill_group(pid, signal)
    return os.waitpid(pid, 0)[1]


def kill_group(pid, signal):
    for target in (lambda: os.killpg(pid, signal.SIGKILL), lambda: os.kill(pid, signal.SIGKILL)):
        try:
            target()
        except OSError:
            pass


def describe_status(status, signal):
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        try:
            name = signal.Signals(sig).name
        except ValueError:
            name = str(sig)
        return "killed by %s" % name
    return "exit status %d" % os.WEXITSTATUS(status)


def finished(ok, value, cap, wall, cpu):
    value = str(value)
    return {"ok": ok, "text": value[:cap + 1], "length": len(value), "seconds": wall, "cpu_seconds": cpu}


def send(out, message):
    write_all(out, (json.dumps(message, ensure_ascii=False) + "\n").encode("utf-8", "replace"))


def write_all(fd, data):
    while data:
        data = data[os.write(fd, data):]


def describe(e, code):
    # The code's own frames, innermost last, then "Type: message" as the last
    # line, like a traceback.
    lines = code.splitlines()
    where = []
    tb = e.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == "<code>":
            n = tb.tb_lineno
            src = lines[n - 1].strip() if 0 < n <= len(lines) else ""
            where.append("  line %d: %s" % (n, src))
        tb = tb.tb_next
    msg = str(e)
    head = "\n".join(where[-3:])
    message = type(e).__name__ + (": " + msg if msg else "")
    return head + "\n" + message if head else message


def render(value, pd, np):
    if isinstance(value, (pd.DataFrame, pd.Series)):
        return value.to_string()
    if isinstance(value, (pd.Index, np.ndarray)):
        value = value.tolist()
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, (dict, list, tuple)):
        try:
            return json.dumps(value, ensure_ascii=False, default=plain)
        except (TypeError, ValueError):
            return repr(value)
    return str(value)


def plain(v):
    if hasattr(v, "item"):
        return v.item()
    if hasattr(v, "tolist"):
        return v.tolist()
    return str(v)


def limit_resources(resource, config):
    # The address-space limit is what the worker already maps plus the
    # configured memory, so that the code may allocate that much.
    base = 0
    try:
        with open("/proc/self/statm") as f:
            base = int(f.read().split()[0]) * resource.getpagesize()
    except (OSError, ValueError, IndexError):
        pass
    limits = ((resource.RLIMIT_CPU, config["cpu_seconds"]), (resource.RLIMIT_AS, base + config["memory"]),
              (resource.RLIMIT_FSIZE, config["file_size"]))
    for limit, value in limits:
        try:
            resource.setrlimit(limit, (value, value))
        except (ValueError, OSError):
            pass


def parent_death_signal():
    """Returns a function that makes the calling process die with its parent
    (Linux prctl PR_SET_PDEATHSIG), or does nothing elsewhere."""
    try:
        import ctypes
        import signal
        libc = ctypes.CDLL(None, use_errno=True)
        prctl = libc.prctl
    except (ImportError, OSError, AttributeError):
        return lambda: None
    parent = os.getpid()

    def set_it():
        prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
        if os.getppid() != parent:
            os._exit(1)
    return set_it


def block_network():
    import socket
    import _socket

    def refuse(*args, **kwargs):
        raise PermissionError("network access is disabled in run_pandas")

    class BlockedSocket(socket.socket):
        def __init__(self, *args, **kwargs):
            refuse()

    for module in (socket, _socket):
        module.socket = BlockedSocket
        for name in ("create_connection", "create_server", "socketpair", "fromfd", "getaddrinfo",
                     "gethostbyname", "gethostbyname_ex", "gethostbyaddr", "getnameinfo"):
            if hasattr(module, name):
                setattr(module, name, refuse)


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "worker":
        worker(json.loads(sys.argv[2]))
    elif len(sys.argv) >= 2 and sys.argv[1] == "analyze":
        codes = json.load(sys.stdin)
        json.dump([analyze(c) for c in codes], sys.stdout)
    else:
        sys.exit("usage: worker CONFIG | analyze")


main()
