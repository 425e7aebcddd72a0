//! The Runtime domain: calling functions and evaluating scripts in an execution context, and the
//! remote objects they answer with.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Done, command, is_false};
use crate::browser::chromium::ids::ScriptId;

/// What a call or evaluation gives back, when it is not JSON already.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ObjectType {
    Object,
    Function,
    Undefined,
    String,
    Number,
    Boolean,
    Symbol,
    Bigint,
    /// A type this service does not know.
    #[default]
    #[serde(other)]
    Other,
}

/// A value in the page: by value (`value`, or `unserializable_value` for NaN, -0, 10n …) or by
/// reference (`object_id`).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RemoteObject {
    #[serde(default, rename = "type")]
    pub kind: ObjectType,
    #[serde(default)]
    pub value: Option<Value>,
    #[serde(default)]
    pub unserializable_value: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub object_id: Option<String>,
}

/// An exception a script threw.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct ExceptionDetails {
    #[serde(default)]
    pub text: Option<String>,
    #[serde(default)]
    pub exception: Option<RemoteObject>,
}

impl ExceptionDetails {
    /// The most useful one-line description: the exception's description, a thrown string, or
    /// Chromium's text; at most 2000 characters.
    pub fn message(&self) -> String {
        let thrown = self.exception.as_ref();
        let description = thrown.and_then(|e| e.description.as_deref());
        let value = thrown.and_then(|e| e.value.as_ref()).and_then(Value::as_str);
        let text = self.text.as_deref().unwrap_or("exception");
        let message = description.or(value).unwrap_or(text);
        let mut message: String = message.chars().take(2000).collect();
        if message.is_empty() {
            message = text.to_owned();
        }
        message
    }
}

/// The answer of `Runtime.callFunctionOn` and `Runtime.evaluate`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Evaluated {
    #[serde(default)]
    pub result: RemoteObject,
    #[serde(default)]
    pub exception_details: Option<ExceptionDetails>,
}

/// An argument of a function call: a JSON value, or an object by id.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum CallArgument {
    Value {
        value: Value,
    },
    Object {
        #[serde(rename = "objectId")]
        object_id: String,
    },
}

/// Calls a function with `this` the object `object_id`, or in the context
/// `execution_context_id`.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CallFunctionOn<'a> {
    pub function_declaration: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub object_id: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub execution_context_id: Option<i64>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub arguments: Vec<CallArgument>,
    #[serde(skip_serializing_if = "is_false")]
    pub return_by_value: bool,
    #[serde(skip_serializing_if = "is_false")]
    pub await_promise: bool,
    #[serde(skip_serializing_if = "is_false")]
    pub user_gesture: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub object_group: Option<&'a str>,
}
command!(CallFunctionOn<'a>, "Runtime.callFunctionOn", Evaluated);

/// The page's isolate id: the cheapest round trip to the renderer, answered after every event the
/// renderer sent before it (a barrier for the events of a pause).
#[derive(Debug, Clone, Serialize)]
pub struct GetIsolateId {}
command!(GetIsolateId, "Runtime.getIsolateId", Done);

/// Evaluates an expression, in the context `context_id` (the main world's by default).
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Evaluate<'a> {
    pub expression: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context_id: Option<i64>,
    #[serde(skip_serializing_if = "is_false")]
    pub return_by_value: bool,
    #[serde(skip_serializing_if = "is_false")]
    pub await_promise: bool,
    #[serde(skip_serializing_if = "is_false")]
    pub repl_mode: bool,
    #[serde(skip_serializing_if = "is_false")]
    pub user_gesture: bool,
    #[serde(skip_serializing_if = "is_false")]
    pub silent: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub object_group: Option<&'a str>,
    /// The DevTools command-line API (`debug()`) in scope, out of the page's reach.
    #[serde(rename = "includeCommandLineAPI", skip_serializing_if = "is_false")]
    pub include_command_line_api: bool,
}
command!(Evaluate<'a>, "Runtime.evaluate", Evaluated);

/// An object's properties (an array's items by index).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GetProperties<'a> {
    pub object_id: &'a str,
    pub own_properties: bool,
}
command!(GetProperties<'a>, "Runtime.getProperties", Properties);

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Properties {
    #[serde(default)]
    pub result: Vec<Property>,
    #[serde(default)]
    pub internal_properties: Vec<Property>,
}

#[derive(Debug, Clone, Default, Deserialize)]
pub struct Property {
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub value: Option<RemoteObject>,
}

impl Properties {
    /// The items of an array that are objects, as (index, object id), in index order.
    pub fn objects(&self) -> Vec<(usize, String)> {
        let mut objects: Vec<(usize, String)> = self
            .result
            .iter()
            .filter_map(|p| Some((p.name.parse().ok()?, p.value.as_ref()?.object_id.clone()?)))
            .collect();
        objects.sort();
        objects
    }

    /// A function's `[[FunctionLocation]]`, when it has one (a native function has none).
    pub fn function_location(&self) -> Option<Location> {
        let location = self.internal_properties.iter().find(|p| p.name == "[[FunctionLocation]]")?;
        serde_json::from_value(location.value.as_ref()?.value.clone()?).ok()
    }
}

/// A place in a script (0-based line and column).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Location {
    pub script_id: ScriptId,
    pub line_number: u32,
    #[serde(default)]
    pub column_number: u32,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReleaseObjectGroup<'a> {
    pub object_group: &'a str,
}
command!(ReleaseObjectGroup<'a>, "Runtime.releaseObjectGroup", Done);

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReleaseObject<'a> {
    pub object_id: &'a str,
}
command!(ReleaseObject<'a>, "Runtime.releaseObject", Done);

/// Stops the script running in the page (a loop a call gave up on).
#[derive(Debug, Clone, Serialize)]
pub struct TerminateExecution {}
command!(TerminateExecution, "Runtime.terminateExecution", Done);

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SetAsyncCallStackDepth {
    pub max_depth: u32,
}
command!(SetAsyncCallStackDepth, "Runtime.setAsyncCallStackDepth", Done);

/// Turns the Runtime domain on (V8 then reports the console messages and errors it kept again).
#[derive(Debug, Clone, Serialize)]
pub struct Enable {}
command!(Enable, "Runtime.enable", Done);

#[derive(Debug, Clone, Serialize)]
pub struct Disable {}
command!(Disable, "Runtime.disable", Done);

/// A function `name` the page's scripts call to report to the service (`Runtime.bindingCalled`),
/// in the worlds named `execution_context_name`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AddBinding<'a> {
    pub name: &'a str,
    pub execution_context_name: &'a str,
}
command!(AddBinding<'a>, "Runtime.addBinding", Done);

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_call_sends_only_what_it_sets() {
        let call = CallFunctionOn {
            function_declaration: "function () {}",
            execution_context_id: Some(3),
            arguments: vec![CallArgument::Value { value: json!(null) }, CallArgument::Object { object_id: "o".into() }],
            return_by_value: true,
            ..CallFunctionOn::default()
        };
        assert_eq!(
            serde_json::to_value(&call).unwrap(),
            json!({ "functionDeclaration": "function () {}", "executionContextId": 3,
                    "arguments": [{ "value": null }, { "objectId": "o" }], "returnByValue": true })
        );
    }

    #[test]
    fn an_exception_is_described_by_its_description_then_its_value_then_the_text() {
        let read = |v: Value| serde_json::from_value::<ExceptionDetails>(v).unwrap().message();
        assert_eq!(
            read(json!({"text":"Uncaught","exception":{"description":"Error: boom\n    at x"}})),
            "Error: boom\n    at x"
        );
        assert_eq!(read(json!({"text":"Uncaught","exception":{"value":"a thrown string"}})), "a thrown string");
        assert_eq!(read(json!({"text":"Uncaught"})), "Uncaught");
    }

    #[test]
    fn an_unknown_object_type_is_other_and_the_rest_still_reads() {
        let answer: Evaluated =
            serde_json::from_value(json!({"result": {"type": "brand-new", "objectId": "o"}})).unwrap();
        assert_eq!((answer.result.kind, answer.result.object_id.as_deref()), (ObjectType::Other, Some("o")));
    }

    #[test]
    fn array_items_and_function_locations_are_read_from_properties() {
        let props: Properties = serde_json::from_value(json!({
            "result": [{"name": "1", "value": {"type": "object", "objectId": "b"}},
                       {"name": "0", "value": {"type": "object", "objectId": "a"}},
                       {"name": "length", "value": {"type": "number", "value": 2}}],
            "internalProperties": [{"name": "[[FunctionLocation]]",
                                    "value": {"type": "object", "value": {"scriptId": "7", "lineNumber": 4, "columnNumber": 2}}}]
        }))
        .unwrap();
        assert_eq!(props.objects(), vec![(0, "a".to_owned()), (1, "b".to_owned())]);
        assert_eq!(
            props.function_location(),
            Some(Location { script_id: "7".into(), line_number: 4, column_number: 2 })
        );
    }
}
