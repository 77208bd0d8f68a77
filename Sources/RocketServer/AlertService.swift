import RocketCore
import RocketJSON
import RocketReactor
import Synchronization

/// An action of an alert served over HTTP: AlertReactor's action, as data.
struct WebAlertAction: AlertActionType, Hashable {
    var title: String
    var style: AlertActionStyle
    var isEnabled: Bool

    var json: JSONValue {
        .object([("title", .string(title)), ("style", .string(style.rawValue)), ("enabled", .bool(isEnabled))])
    }
}

/// An alert or action sheet a page shows and an app drives: AlertReactor's state (title,
/// message, actions) changed by its typed mutations, plus what the user chose.
struct AlertEntry {
    var visitor: String
    /// The client address it counts against.
    var address: String
    var state: AlertReactorState<WebAlertAction>
    var sheet: Bool
    var selected: Int?
    var version = 1
    var touched: Double

    func view(id: String) -> JSONValue {
        .object([
            ("id", .string(id)), ("version", .number(Double(version))), ("style", .string(sheet ? "actionSheet" : "alert")),
            ("title", state.title.map { .string($0) } ?? .null), ("message", state.message.map { .string($0) } ?? .null),
            ("actions", .array(state.actions.map(\.json))), ("status", .string(selected == nil ? "open" : "dismissed")),
            ("selected", selected.map { .number(Double($0)) } ?? .null),
        ])
    }
}

extension ConversationService {
    /// At most this many actions in one alert.
    static let maxAlertActions = RocketLimits.alertActions

    /// The actions of field `key`: at most ``maxAlertActions`` objects of a title, a style and
    /// whether it is enabled, with at most one cancel action.
    func actions(_ fields: RequestBody, _ key: String) -> Result<[WebAlertAction], ResponseError> {
        let rule =
            "\"\(key)\" is an array of at most \(Self.maxAlertActions) objects: {\"title\": text, \"style\": default|cancel|destructive, \"enabled\": true|false}"
        let items: [JSONFields]
        switch fields.objects(key, maxCount: Self.maxAlertActions, allowed: ["title", "style", "enabled"]) {
        case .failure: return .failure(RequestBody.bad(rule))
        case .success(let list): items = list
        }
        var out: [WebAlertAction] = []
        for item in items {
            do throws(JSONShapeError) {
                let title = try item.string("title")
                guard !title.isEmpty, title.utf8.count <= 256 else { return .failure(RequestBody.bad(rule)) }
                let style = try item.member("style").map { v throws(JSONShapeError) in
                    try JSONFields.word(item.tape, v, path: item.child("style"), AlertActionStyle.self)
                }
                let enabled = try item.member("enabled").map { v throws(JSONShapeError) in try JSONFields.bool(item.tape, v, path: item.child("enabled")) }
                out.append(WebAlertAction(title: title, style: style ?? .default, isEnabled: enabled ?? true))
            } catch {
                return .failure(RequestBody.bad(rule))
            }
        }
        guard out.filter({ $0.style == .cancel }).count <= 1 else { return .failure(RequestBody.bad("an alert has at most one cancel action")) }
        return .success(out)
    }

    /// A text of at most 4,096 bytes, or null / absent for none.
    func optionalText(_ fields: RequestBody, _ key: String) -> Result<String?, ResponseError> {
        fields.string(key, maxBytes: 4096)
    }

    /// `POST /v1/alerts`: an alert (or action sheet) for a visitor's page to show, made by a
    /// site for any visitor or by a visitor for itself.
    func createAlert(_ request: HTTPRequest) -> HTTPResponse {
        let caller: Caller
        switch visitorOrSite(request) {
        case .failure(let e): return e.response
        case .success(let c): caller = c
        }
        let fields: RequestBody
        switch body(request, allowed: ["visitor", "title", "message", "style", "actions"]) {
        case .failure(let e): return e.response
        case .success(let f): fields = f
        }
        let visitor: String
        switch actingVisitor(caller, named: fields.string("visitor", maxBytes: 128)) {
        case .failure(let e): return e.response
        case .success(let v): visitor = v
        }
        guard case .success(let title) = optionalText(fields, "title"), case .success(let message) = optionalText(fields, "message") else {
            return .error(400, "bad-field", "\"title\" and \"message\" are strings of at most 4096 bytes")
        }
        var sheet = false
        if fields.has("style") {
            guard case .success(let st?) = fields.string("style", maxBytes: 16), st == "alert" || st == "actionSheet" else {
                return .error(400, "bad-field", "\"style\" is \"alert\" or \"actionSheet\"")
            }
            sheet = st == "actionSheet"
        }
        let list: [WebAlertAction]
        switch actions(fields, "actions") {
        case .failure(let e): return e.response
        case .success(let a): list = a
        }
        let now = clock.now
        if caller != .site {
            guard state.withLock({ s in admit(visitor, in: &s, at: now) }) else { return tooMany() }
        }
        sweepIfDue(now)
        let id = Self.newID()
        let address = clientAddress(request)
        let entry = AlertEntry(
            visitor: visitor, address: address, state: AlertReactorState(title: title, message: message, actions: list), sheet: sheet, touched: now)
        enum Outcome { case stored, full, addressFull }
        let outcome = state.withLock { s -> Outcome in
            guard s.alerts.count < configuration.maxConversations else { return .full }
            guard s.liveAlerts[address, default: 0] < configuration.perAddress else { return .addressFull }
            s.alerts[id] = entry
            s.liveAlerts[address, default: 0] += 1
            return .stored
        }
        switch outcome {
        case .stored: break
        case .full: return .error(503, "too-many-alerts", "the server holds its maximum of alerts; try again later")
        case .addressFull: return quotaFull("alerts")
        }
        return .json(201, .object([("alert", entry.view(id: id))]))
    }

    /// The alert `id` of the request's visitor (a site reaches any), changed by `body` under
    /// the lock; the response and the change to publish, serialized after the lock is released.
    func withAlert(
        _ request: HTTPRequest, id: String, _ body: (inout AlertEntry) -> Result<Bool, ResponseError>
    ) -> HTTPResponse {
        let caller: Caller
        switch visitorOrSite(request) {
        case .failure(let e): return e.response
        case .success(let c): caller = c
        }
        var visitor: String? = nil
        if case .visitor(let v) = caller { visitor = v }
        let now = clock.now
        let unknown = HTTPResponse.error(404, "unknown-alert", "there is no such alert for this visitor")
        let result: Result<(AlertEntry, Bool), ResponseError> = state.withLock { s in
            if let visitor, !admit(visitor, in: &s, at: now) { return .failure(ResponseError(tooMany())) }
            guard var e = s.alerts[id], visitor == nil || e.visitor == visitor else { return .failure(ResponseError(unknown)) }
            e.touched = now
            switch body(&e) {
            case .failure(let err):
                s.alerts[id] = e
                return .failure(err)
            case .success(let changed):
                if changed { e.version += 1 }
                s.alerts[id] = e
                return .success((e, changed))
            }
        }
        switch result {
        case .failure(let e): return e.response
        case .success(let (e, changed)):
            let v = e.view(id: id)
            if changed, let box = listener.withLock({ $0 }) {
                box.body(Change(id: id, version: e.version, view: v.serializedBytes(), events: []))
            }
            return .json(200, .object([("alert", v)]))
        }
    }

    func readAlert(_ request: HTTPRequest, id: String) -> HTTPResponse {
        withAlert(request, id: id) { _ in .success(false) }
    }

    /// `POST /v1/alerts/ID/mutations`: one of AlertReactor's mutations (`setTitle`, `setMessage`,
    /// `setActions`), applied while the alert is open: pages showing it update at once.
    func mutateAlert(_ request: HTTPRequest, id: String) -> HTTPResponse {
        let fields: RequestBody
        switch body(request, allowed: ["setTitle", "setMessage", "setActions"]) {
        case .failure(let e): return e.response
        case .success(let f): fields = f
        }
        let keys = fields.keys
        guard keys.count == 1, let key = keys.first else {
            return .error(400, "bad-body", "send exactly one mutation: setTitle, setMessage or setActions")
        }
        let mutation: AlertReactorMutation<WebAlertAction>
        switch key {
        case "setActions":
            switch actions(fields, key) {
            case .failure(let e): return e.response
            case .success(let a): mutation = .setActions(a)
            }
        default:
            guard case .success(let text) = optionalText(fields, key) else {
                return .error(400, "bad-field", "\"\(key)\" is a string of at most 4096 bytes, or null")
            }
            mutation = key == "setTitle" ? .setTitle(text) : .setMessage(text)
        }
        return withAlert(request, id: id) { e in
            guard e.selected == nil else { return .failure(ResponseError(.error(409, "alert-closed", "the alert was already answered"))) }
            e.state = e.state.applying(mutation)
            return .success(true)
        }
    }

    /// `POST /v1/alerts/ID/select`: the user chose action `index` (it must be enabled).
    func selectAlert(_ request: HTTPRequest, id: String) -> HTTPResponse {
        let fields: RequestBody
        switch body(request, allowed: ["index"]) {
        case .failure(let e): return e.response
        case .success(let f): fields = f
        }
        guard case .success(let index?) = fields.integer("index", range: 0...(Self.maxAlertActions - 1)) else {
            return .error(400, "bad-field", "\"index\" is the number of the chosen action, from 0")
        }
        return withAlert(request, id: id) { e in
            if let chosen = e.selected {
                return chosen == index ? .success(false) : .failure(ResponseError(.error(409, "alert-closed", "the alert was already answered")))
            }
            guard e.state.actions.indices.contains(index) else {
                return .failure(ResponseError(.error(422, "no-such-action", "the alert has no action \(index)")))
            }
            guard e.state.actions[index].isEnabled else {
                return .failure(ResponseError(.error(422, "action-disabled", "\"\(e.state.actions[index].title)\" cannot be chosen now")))
            }
            e.selected = index
            return .success(true)
        }
    }

    func alertStream(_ request: HTTPRequest, id: String) -> HTTPResponse {
        let r = readAlert(request, id: id)
        guard r.status == 200, let frames = currentFrames(id) else { return r }
        return .eventStream(id, first: frames)
    }
}
