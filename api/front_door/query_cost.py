"""The static cost of one GraphQL operation (issue 27, "Query cost"), computed from its document
and variables before anything runs; the prices are contract/query_costs.py's one table.

The operation's fields are gathered as execution gathers them (graphql-core's CollectFields):
fragments and inline fragments are expanded where they are spread, fields with one response
key are merged into one (they run once), and every alias is a field of its own. `@skip` and
`@include` are ignored: a field is priced as if it runs, so a directive cannot hide its cost.
An argument's value is the literal, or the variable's value (else the variable's default, else
the field argument's default): a variable hides nothing.

What the pricing itself may cost is bounded too: it visits at most `MAX_VISITS` fields (the
token limit keeps documents small, but fragments spread inside fragments multiply), and a
fragment spread inside itself stops there (validation refuses such a document anyway). A
document that would take more is `TooComplex`, refused as COST_LIMIT_EXCEEDED like any other
document over the limit.

    >>> from graphql import parse
    >>> from api.schema import create_schema
    >>> schema = create_schema([])._schema
    >>> text = '{ a: searchPassages(query: "x", limit: 5) { score } b: entityLabels { label } }'
    >>> operation_cost(schema, parse(text), None, {})  # 5 reads + 5 hits; 1 read + 1 label
    12
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from graphql import (
    DocumentNode,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLField,
    GraphQLNamedType,
    GraphQLObjectType,
    GraphQLSchema,
    InlineFragmentNode,
    OperationDefinitionNode,
    SelectionSetNode,
    get_named_type,
    is_abstract_type,
    is_composite_type,
    is_list_type,
    is_non_null_type,
    value_from_ast_untyped,
)
from graphql.language import ValueNode, VariableNode

from contract.query_costs import Selected, selection_cost

MAX_VISITS = 20_000  # fields the pricing of one document may visit


class TooComplex(Exception):
    """The document expands to more fields than the pricing visits."""


def operation_cost(
    schema: GraphQLSchema,
    document: DocumentNode,
    operation_name: str | None,
    variables: Mapping[str, Any] | None,
) -> int:
    """The cost of the operation the request runs; 0 when there is none to run (the request
    is refused by validation or by Strawberry, not priced). `TooComplex` past `MAX_VISITS`."""
    operation = _operation(document, operation_name)
    if operation is None:
        return 0
    root = schema.get_root_type(operation.operation)
    if root is None:
        return 0
    pricing = _Pricing(schema, document, operation, variables or {})
    return selection_cost(pricing.selection(root, [operation.selection_set]))


def declared_variables(
    document: DocumentNode, operation_name: str | None, variables: Mapping[str, Any] | None
) -> dict[str, Any]:
    """The values sent for the variables the operation declares: all a price can read (using
    an undeclared variable fails validation), and no larger than the document says.

    >>> from graphql import parse
    >>> declared_variables(parse("query ($n: Int) { x }"), None, {"n": 3, "extra": "…"})
    {'n': 3}
    """
    if not variables:
        return {}
    operation = _operation(document, operation_name)
    if operation is None:
        return {}
    names = (d.variable.name.value for d in operation.variable_definitions or ())
    return {name: variables[name] for name in names if name in variables}


def _operation(document: DocumentNode, name: str | None) -> OperationDefinitionNode | None:
    operations = [d for d in document.definitions if isinstance(d, OperationDefinitionNode)]
    if name is None:
        return operations[0] if len(operations) == 1 else None
    return next((o for o in operations if o.name is not None and o.name.value == name), None)


class _Pricing:
    def __init__(
        self,
        schema: GraphQLSchema,
        document: DocumentNode,
        operation: OperationDefinitionNode,
        variables: Mapping[str, Any],
    ) -> None:
        self.schema = schema
        self.fragments = {
            d.name.value: d for d in document.definitions if isinstance(d, FragmentDefinitionNode)
        }
        self.variables = dict(variables)
        for definition in operation.variable_definitions or ():
            name = definition.variable.name.value
            if name not in self.variables and definition.default_value is not None:
                self.variables[name] = value_from_ast_untyped(definition.default_value)
        self.visits = 0

    def selection(
        self, parent: GraphQLNamedType, selection_sets: Sequence[SelectionSetNode]
    ) -> list[Selected]:
        """The fields of `selection_sets` on `parent`, merged by response key. On an abstract
        type the most expensive of its object types stands for it."""
        if is_abstract_type(parent):
            candidates = [
                self._fields(t, selection_sets) for t in self.schema.get_possible_types(parent)
            ]
            return max(candidates, key=selection_cost, default=[])
        if not isinstance(parent, GraphQLObjectType):
            return []
        return self._fields(parent, selection_sets)

    def _fields(
        self, parent: GraphQLObjectType, selection_sets: Sequence[SelectionSetNode]
    ) -> list[Selected]:
        groups: dict[str, list[FieldNode]] = {}
        for selection_set in selection_sets:
            self._collect(parent, selection_set, groups, set())
        selected = []
        for nodes in groups.values():
            name = nodes[0].name.value
            definition = parent.fields.get(name)
            if definition is None:  # `__typename`, introspection: no read of the graph
                continue
            returned = get_named_type(definition.type)
            children = [n.selection_set for n in nodes if n.selection_set is not None]
            selected.append(
                Selected(
                    parent=parent.name,
                    field=name,
                    arguments=self._arguments(definition, nodes[0]),
                    returns_objects=is_composite_type(returned),
                    selection=self.selection(returned, children) if children else (),
                )
            )
        return selected

    def _collect(
        self,
        parent: GraphQLObjectType,
        selection_set: SelectionSetNode,
        groups: dict[str, list[FieldNode]],
        spreading: set[str],
    ) -> None:
        for node in selection_set.selections:
            self.visits += 1
            if self.visits > MAX_VISITS:
                raise TooComplex
            if isinstance(node, FieldNode):
                key = node.alias.value if node.alias else node.name.value
                groups.setdefault(key, []).append(node)
            elif isinstance(node, InlineFragmentNode):
                if self._applies(
                    parent, node.type_condition.name.value if node.type_condition else None
                ):
                    self._collect(parent, node.selection_set, groups, spreading)
            elif isinstance(node, FragmentSpreadNode):
                name = node.name.value
                fragment = self.fragments.get(name)
                if fragment is None or name in spreading:
                    continue
                if self._applies(parent, fragment.type_condition.name.value):
                    self._collect(parent, fragment.selection_set, groups, spreading | {name})

    def _applies(self, parent: GraphQLObjectType, condition: str | None) -> bool:
        if condition is None or condition == parent.name:
            return True
        named = self.schema.get_type(condition)
        return (
            named is not None
            and is_abstract_type(named)
            and self.schema.is_sub_type(
                named,
                parent,
            )
        )

    def _arguments(self, definition: GraphQLField, node: FieldNode) -> dict[str, object]:
        """Every argument of the field: the client's value, else the declared default."""
        values: dict[str, object] = {
            name: argument.default_value
            for name, argument in definition.args.items()
            if _is_plain(argument.default_value)
        }
        for given in node.arguments or ():
            values[given.name.value] = self._value(given.value)
        return values

    def _value(self, node: ValueNode) -> object:
        if isinstance(node, VariableNode):
            return self.variables.get(node.name.value)
        return value_from_ast_untyped(node, self.variables)


def _is_plain(value: object) -> bool:
    return isinstance(value, int | str | list) or value is None


def returns_list(field: GraphQLField) -> bool:
    """Whether a field returns a list (for the test that every such field has a cost rule)."""
    kind = field.type.of_type if is_non_null_type(field.type) else field.type
    return is_list_type(kind)
