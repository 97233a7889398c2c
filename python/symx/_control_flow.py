"""mx.sym.contrib.foreach / while_loop / cond and their mx.nd forms.

The symbolic builders trace the user's Python functions into body graphs,
as MXNet 1.9.1's do: inside an AttrScope marking the body's nodes
(``__subgraph_name__``), on fresh variables standing for the loop's data and
states. Whatever the body reads from outside its scope is cut at the border:
an outer operator's output becomes a body variable named after that output
and an input of the loop node; outer variables stay variables of the body
and become inputs of the node by name. The node (_foreach, _while_loop,
_cond) is then written as MXNet writes it in a symbol file, the bodies in
its "subgraphs", loaded by the engine's JSON reader and composed with the
outer inputs, so a traced loop and an exported one are the same graph.

The NDArray forms run the Python functions eagerly, as MXNet does: foreach
and while_loop loop in Python and stack the step outputs (while_loop pads to
max_iterations with zeros, where MXNet leaves the padding uninitialized);
cond calls one branch.
"""
import json

from . import ndarray as _nd
from . import symbol as _sym
from .attribute import AttrScope
from .name import NameManager

__all__ = ["foreach", "while_loop", "cond", "nd_foreach", "nd_while_loop", "nd_cond"]

_SUBGRAPH_COUNTS = {}


# --------------------------------------------------------------------------- nesting


def _flatten(args, what, leaf):
    """(flat list of leaves, format): a leaf gives format 0, a list the
    formats of its items (MXNet's nesting rule)."""
    if isinstance(args, leaf):
        return [args], 0
    if not isinstance(args, (list, tuple)):
        raise TypeError("%s must be a (nested) list of %s, got %s"
                        % (what, leaf.__name__, type(args).__name__))
    flat, fmts = [], []
    for item in args:
        sub, fmt = _flatten(item, what, leaf)
        flat.extend(sub)
        fmts.append(fmt)
    return flat, fmts


def _regroup(flat, fmt):
    """The nesting of `fmt` over `flat`; returns (nested, rest of flat)."""
    if isinstance(fmt, int):
        if fmt == 0:
            return flat[0], flat[1:]
        return flat[:fmt], flat[fmt:]
    out = []
    for item in fmt:
        sub, flat = _regroup(flat, item)
        out.append(sub)
    return out, flat


def _as_list(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _to_scalar(value, type_, what):
    if hasattr(value, "asscalar"):
        value = value.asscalar()
    try:
        return type_(value)
    except (TypeError, ValueError):
        raise ValueError("Cannot convert %s to python %s" % (what, type_.__name__)) from None


# --------------------------------------------------------------------------- tracing


def _unique_subgraph_name(name):
    count = _SUBGRAPH_COUNTS.get(name, 0)
    _SUBGRAPH_COUNTS[name] = count + 1
    return "%s%d" % (name, count)


def _loop_var_name(sym):
    """MXNet's name of the body variable standing for `sym`: "<node>-<output>"."""
    out = sym.list_outputs()[0]
    index = 0
    stem = out.rsplit("_output", 1)
    if len(stem) == 2 and stem[1].isdigit():
        index = int(stem[1])
    return "%s-%d" % (sym.name, index)


def _body_group(outputs, scope):
    """The body's heads as a group; a head that is a body input or made
    outside the body goes through identity, so every head is a body node."""
    inputs = set(_sym.Group(outputs).list_inputs()) if outputs else set()
    heads = []
    for out in outputs:
        if out.name in inputs or out.list_attr().get("__subgraph_name__", "") != scope:
            out = _sym.identity(out)
        heads.append(out)
    return _sym.Group(heads)


def _cut(group, scope):
    """The body graph of `group` with what was made outside `scope` cut off.

    Returns (body JSON, {body variable name: outer symbol}) where the outer
    symbols are the cut operator outputs; outer variables stay in the body."""
    graph = json.loads(group.tojson())
    nodes = graph["nodes"]
    row = graph["node_row_ptr"]
    internals = group.get_internals()
    entry_names = internals.list_outputs()

    def inside(n):
        return n["op"] == "null" or (n.get("attrs") or {}).get("__subgraph_name__") == scope

    keep = set()
    cut = {}  # (node, output) -> variable name
    stack = [h[0] for h in graph["heads"]]
    while stack:
        i = stack.pop()
        if i in keep:
            continue
        keep.add(i)
        if nodes[i]["op"] == "null":
            continue
        for src, out, _ in nodes[i]["inputs"]:
            if inside(nodes[src]):
                stack.append(src)
            else:
                cut[(src, out)] = entry_names[row[src] + out]
    new_nodes, counts, index, cut_index, outer = [], [], {}, {}, {}
    for i, n in enumerate(nodes):
        if i not in keep:
            continue
        inputs = []
        for src, out, ver in n.get("inputs", []):
            if (src, out) not in cut:
                inputs.append([index[src], out, ver])
                continue
            if (src, out) not in cut_index:
                var = cut[(src, out)]
                cut_index[(src, out)] = len(new_nodes)
                new_nodes.append({"op": "null", "name": var, "inputs": []})
                counts.append(1)
                outer[var] = internals[var]
            inputs.append([cut_index[(src, out)], 0, 0])
        node = dict(n)
        node["inputs"] = inputs
        index[i] = len(new_nodes)
        new_nodes.append(node)
        counts.append(row[i + 1] - row[i])
    row_ptr = [0]
    for c in counts:
        row_ptr.append(row_ptr[-1] + c)
    body = {
        "nodes": new_nodes,
        "arg_nodes": [i for i, n in enumerate(new_nodes) if n["op"] == "null"],
        "node_row_ptr": row_ptr,
        "heads": [[index[h[0]], h[1], h[2]] for h in graph["heads"]],
        "attrs": graph.get("attrs", {"mxnet_version": ["int", 10901]}),
    }
    return body, outer


def _body(group, scope):
    """(body JSON, its input names in order, {name: outer symbol} of cuts)."""
    body, cuts = _cut(group, scope)
    names = _sym.load_json(json.dumps(body)).list_inputs()
    if len(set(names)) != len(names):
        raise ValueError("The inputs of the subgraph don't have unique names: %s" % names)
    return body, names, cuts


def _outer_variable(group, name):
    """The variable `name` the body reads, as the symbol the caller made."""
    return group.get_internals()[name]


def _loop_node(op, bodies, inputs, attrs, num_outputs, hint):
    """The control-flow node over `inputs`, its bodies in "subgraphs"."""
    node_name = NameManager().get(None, hint)
    node_attrs = {k: v for k, v in AttrScope().get(None).items()}
    node_attrs.update({k: str(v) for k, v in attrs.items()})
    node_attrs["num_args"] = str(len(inputs) + len(bodies))
    names = ["%s_in%d" % (node_name, i) for i in range(len(inputs))]
    nodes = [{"op": "null", "name": n, "inputs": []} for n in names]
    nodes.append({"op": op, "name": node_name, "attrs": node_attrs,
                  "inputs": [[i, 0, 0] for i in range(len(inputs))], "subgraphs": bodies})
    graph = {
        "nodes": nodes,
        "arg_nodes": list(range(len(inputs))),
        "node_row_ptr": list(range(len(inputs) + 1)) + [len(inputs) + num_outputs],
        "heads": [[len(inputs), k, 0] for k in range(num_outputs)],
        "attrs": {"mxnet_version": ["int", 10901]},
    }
    loop = _sym.load_json(json.dumps(graph))
    return loop(**dict(zip(names, inputs))) if inputs else loop


def _check_symbols(flat, what):
    for s in flat:
        if not isinstance(s, _sym.Symbol):
            raise TypeError("%s should be a Symbol or a nested list of Symbols, got %s"
                            % (what, type(s).__name__))


# --------------------------------------------------------------------------- symbolic


def foreach(body, data, init_states, name="foreach"):
    """MXNet's mx.sym.contrib.foreach: body(data_i, states) -> (outputs,
    new_states) over axis 0 of data; returns (stacked outputs, final states)."""
    flat_data, data_fmt = _flatten(data, "foreach input", _sym.Symbol)
    flat_states, state_fmt = _flatten(init_states, "foreach states", _sym.Symbol)
    _check_symbols(flat_data + flat_states, "data and init_states")
    scope = _unique_subgraph_name(name)
    with AttrScope(__subgraph_name__=scope):
        data_vars = [_sym.var(_loop_var_name(s)) for s in flat_data]
        state_vars = [_sym.var(_loop_var_name(s)) for s in flat_states]
        outs, new_states = body(_regroup(data_vars, data_fmt)[0],
                                _regroup(state_vars, state_fmt)[0])
        flat_outs, out_fmt = _flatten(outs, "foreach output", _sym.Symbol)
        flat_new, new_fmt = _flatten(new_states, "foreach loop_vars", _sym.Symbol)
        if new_fmt != state_fmt:
            raise ValueError("The input and output loop_vars have different format")
        group = _body_group(flat_outs + flat_new, scope)
    body_json, names, cuts = _body(group, scope)
    data_names = [_loop_var_name(s) for s in flat_data]
    state_names = [_loop_var_name(s) for s in flat_states]
    for what, wanted in (("data arrays", data_names), ("state arrays", state_names)):
        for n in wanted:
            if n not in names:
                raise ValueError("the %s have to be used in the loop body (%s is not)" % (what, n))
    inputs = list(flat_data) + list(flat_states)
    remain_locs = []
    for i, n in enumerate(names):
        if n in cuts:
            inputs.append(cuts[n])
        elif n in data_names or n in state_names:
            continue
        else:
            inputs.append(_outer_variable(group, n))
        remain_locs.append(i)
    num_outputs = len(flat_outs) + len(flat_new)
    loop = _loop_node("_foreach", [body_json], inputs, {
        "num_outputs": num_outputs,
        "num_out_data": len(flat_outs),
        "in_state_locs": [names.index(n) for n in state_names],
        "in_data_locs": [names.index(n) for n in data_names],
        "remain_locs": remain_locs,
    }, num_outputs, "_foreach")
    outs = _regroup([loop[i] for i in range(len(flat_outs))], out_fmt)[0] if flat_outs else []
    states = _regroup([loop[len(flat_outs) + i] for i in range(len(flat_new))], state_fmt)[0]
    return outs, states


def _union_inputs(groups, bodies, known):
    """The loop node's inputs over several bodies and each body's locations
    of its inputs among them. `known`: {body variable name: outer symbol}."""
    inputs, by_key, locs = [], {}, []
    for group, (_, names, cuts) in zip(groups, bodies):
        body_locs = []
        for n in names:
            if n in known:
                sym, key = known[n], ("known", n)
            elif n in cuts:
                sym, key = cuts[n], ("cut", cuts[n].list_outputs()[0])
            else:
                sym, key = _outer_variable(group, n), ("var", n)
            if key not in by_key:
                by_key[key] = len(inputs)
                inputs.append(sym)
            body_locs.append(by_key[key])
        locs.append(body_locs)
    return inputs, locs


def while_loop(cond, func, loop_vars, max_iterations=None, name="while_loop"):
    """MXNet's mx.sym.contrib.while_loop: while cond(*vars) and fewer than
    max_iterations steps, (outputs, vars) = func(*vars); returns (step outputs
    stacked into max_iterations rows, final vars)."""
    if max_iterations is None:
        raise ValueError("max_iterations should be specified")
    max_iterations = _to_scalar(max_iterations, int, "max_iteration")
    flat_vars, var_fmt = _flatten(loop_vars, "while loop_vars", _sym.Symbol)
    if not flat_vars:
        raise ValueError("loop_vars should contain at least one element")
    _check_symbols(flat_vars, "loop_vars")
    var_names = [_loop_var_name(s) for s in flat_vars]

    def trace(fn, suffix):
        scope = _unique_subgraph_name(name + suffix)
        with AttrScope(__subgraph_name__=scope):
            new_vars = [_sym.var(n) for n in var_names]
            outs, states, out_fmt = fn(_regroup(new_vars, var_fmt)[0])
            group = _body_group(outs + states, scope)
        return group, scope, len(outs), out_fmt, len(states)

    def cond_fn(vars_):
        result = cond(*_as_list(vars_))
        if not isinstance(result, _sym.Symbol):
            raise ValueError("Return of cond must be a Symbol")
        return [], [result], 0

    def func_fn(vars_):
        step, new_vars = func(*_as_list(vars_))
        step = [] if step is None else step
        new_vars = [] if new_vars is None else new_vars
        flat_step, out_fmt = _flatten(list(step) if isinstance(step, tuple) else step,
                                      "while output", _sym.Symbol)
        flat_new, _ = _flatten(list(new_vars) if isinstance(new_vars, tuple) else new_vars,
                               "while loop_vars", _sym.Symbol)
        if len(flat_new) != len(flat_vars):
            raise ValueError("The number of loop_vars should be consistent during the loop")
        return flat_step, flat_new, out_fmt

    cond_g, cond_scope, _, _, _ = trace(cond_fn, "_cond")
    func_g, func_scope, num_out_data, out_fmt, num_states = trace(func_fn, "_func")
    bodies = [_body(cond_g, cond_scope), _body(func_g, func_scope)]
    known = dict(zip(var_names, flat_vars))
    inputs, (cond_locs, func_locs) = _union_inputs([cond_g, func_g], bodies, known)
    func_names = bodies[1][1]
    func_var_locs = []
    for i, n in enumerate(var_names, 1):
        if n not in func_names:
            raise ValueError("The %d-th loop_var doesn't involve into the computation" % i)
        func_var_locs.append(func_names.index(n))
    num_outputs = num_out_data + num_states
    loop = _loop_node("_while_loop", [bodies[0][0], bodies[1][0]], inputs, {
        "max_iterations": max_iterations,
        "cond_input_locs": cond_locs,
        "func_input_locs": func_locs,
        "func_var_locs": func_var_locs,
        "num_out_data": num_out_data,
        "num_outputs": num_outputs,
    }, num_outputs, "_while_loop")
    outs = [loop[i] for i in range(num_out_data)]
    if num_out_data:
        outs = _regroup(outs, out_fmt)[0]
    final = _regroup([loop[num_out_data + i] for i in range(num_states)], var_fmt)[0]
    return outs, final


def cond(pred, then_func, else_func, name="cond"):
    """MXNet's mx.sym.contrib.cond: then_func() where the scalar pred is
    nonzero, else else_func(); both return the same number of outputs."""
    if not isinstance(pred, _sym.Symbol):
        raise TypeError("pred should be a Symbol, got %s" % type(pred).__name__)

    def trace(fn, suffix):
        scope = _unique_subgraph_name(name + suffix)
        with AttrScope(__subgraph_name__=scope):
            flat, fmt = _flatten(fn(), "cond outputs", _sym.Symbol)
            group = _body_group(flat, scope)
        return group, scope, len(flat), fmt

    pred_g, pred_scope, n_pred, _ = trace(lambda: pred, "_pred")
    if n_pred != 1:
        raise ValueError("pred should always be a single output")
    then_g, then_scope, n_then, then_fmt = trace(then_func, "_then")
    else_g, else_scope, n_else, _ = trace(else_func, "_else")
    if n_then != n_else:
        raise ValueError("Number of outputs differs between then-branch and else-branch")
    groups = [pred_g, then_g, else_g]
    bodies = [_body(pred_g, pred_scope), _body(then_g, then_scope), _body(else_g, else_scope)]
    inputs, (pred_locs, then_locs, else_locs) = _union_inputs(groups, bodies, {})
    loop = _loop_node("_cond", [b[0] for b in bodies], inputs, {
        "cond_input_locs": pred_locs,
        "then_input_locs": then_locs,
        "else_input_locs": else_locs,
        "num_outputs": n_then,
    }, n_then, "_cond")
    return _regroup([loop[i] for i in range(n_then)], then_fmt)[0]


# --------------------------------------------------------------------------- imperative


def nd_foreach(body, data, init_states):
    """MXNet's mx.nd.contrib.foreach, run eagerly."""
    flat_data, _ = _flatten(data, "foreach input", _nd.NDArray)
    _flatten(init_states, "foreach states", _nd.NDArray)
    single = isinstance(data, _nd.NDArray)
    steps = flat_data[0].shape[0]
    states, rows, out_fmt = init_states, [], None
    for i in range(steps):
        item = data[i] if single else [d[i] for d in data]
        outs, states = body(item, states)
        flat, out_fmt = _flatten(outs, "foreach output", _nd.NDArray)
        rows.append(flat)
    stacked = [_nd.stack(*column, axis=0) for column in zip(*rows)]
    outputs = _regroup(stacked, out_fmt)[0] if out_fmt is not None and stacked else []
    return outputs, states


def nd_while_loop(cond, func, loop_vars, max_iterations=None):
    """MXNet's mx.nd.contrib.while_loop, run eagerly (padding rows are zero)."""
    if max_iterations is None:
        raise ValueError("max_iterations should be specified")
    max_iterations = _to_scalar(max_iterations, int, "max_iteration")
    single = isinstance(loop_vars, _nd.NDArray)
    loop_vars = _as_list(loop_vars)
    if not loop_vars:
        raise ValueError("loop_vars should contain at least one element")
    steps, rows, out_fmt = 0, [], None
    while steps < max_iterations and _to_scalar(cond(*loop_vars), bool, "Return value of cond"):
        step, new_vars = func(*loop_vars)
        step = [] if step is None else (list(step) if isinstance(step, tuple) else step)
        new_vars = _as_list([] if new_vars is None else new_vars)
        if len(new_vars) != len(loop_vars):
            raise ValueError("The length of loop_vars should be consistent during the loop")
        loop_vars = new_vars
        flat, out_fmt = _flatten(step, "while output", _nd.NDArray)
        if rows and len(flat) != len(rows[0]):
            raise ValueError("Number of elements in step_output should be the same in each step")
        rows.append(flat)
        steps += 1
    stacked = []
    for k, column in enumerate(zip(*rows), 1):
        items = [x.expand_dims(0) for x in column]
        if steps != max_iterations:
            pad = _nd.zeros([max_iterations - steps] + list(items[0].shape[1:]),
                            ctx=items[0].context, dtype=items[0].dtype)
            items.append(pad)
        try:
            stacked.append(_nd.concat(*items, dim=0))
        except Exception as e:
            raise ValueError("Shapes of %d-th elements in step_outputs are inconsistent: %s"
                             % (k, [x.shape for x in column])) from e
    if out_fmt is not None:
        stacked = _regroup(stacked, out_fmt)[0]
    return stacked, (loop_vars[0] if single else loop_vars)


def nd_cond(pred, then_func, else_func):
    """MXNet's mx.nd.contrib.cond: one branch, chosen by the scalar pred."""
    return then_func() if _to_scalar(pred, bool, "pred") else else_func()
