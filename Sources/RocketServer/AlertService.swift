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
        let created = HTTPResponse.json(201, .object([("alert", entry.view(id: id))]))
        // In a store servers share, the alert is there before it is acknowledged (on the database thread).
        guard let shared = sharedAlerts else { return created }
        return .deferred {
            do throws(ConversationArchive.Failure) {
                guard try shared.saveAlert(id, visitor: visitor, version: entry.version, storedVersion: 0, text: StoredAlert(entry).text, touched: now) else {
                    return .error(409, "stale-step", "the alert could not be made; try again")
                }
            } catch {
                self.state.withLock { s in self.dropAlert(id, in: &s) }
                self.log("rocket serve: conversation store: \(error.message)")
                return Self.storeUnavailable
            }
            return created
        }
    }

    /// The alerts of a store servers share (nil: alerts live in this server's memory).
    var sharedAlerts: (any SharedAlerts)? { archive?.isShared == true ? archive as? any SharedAlerts : nil }

    /// Forgets alert `id` here (the store keeps it).
    func dropAlert(_ id: String, in s: inout State) {
        guard let gone = s.alerts.removeValue(forKey: id) else { return }
        s.liveAlerts[gone.address, default: 1] -= 1
    }

    /// Alert `id` as the shared store holds it, kept here too (nil: none); a store that cannot
    /// be read now is a failure.
    func storedAlert(_ id: String) -> Result<AlertEntry?, ConversationArchive.Failure> {
        guard let shared = sharedAlerts else { return .success(nil) }
        let text: String?
        do throws(ConversationArchive.Failure) { text = try shared.loadAlert(id) } catch { return .failure(error) }
        guard let text, let e = StoredAlert(text: text)?.entry else { return .success(nil) }
        state.withLock { s in
            if s.alerts[id] == nil { s.liveAlerts[e.address, default: 0] += 1 }
            s.alerts[id] = e
        }
        return .success(e)
    }

    /// The alert `id` of the request's visitor (a site reaches any), changed by `body` under
    /// the lock; the response and the change to publish, serialized after the lock is released.
    func withAlert(
        _ request: HTTPRequest, id: String, _ body: @escaping @Sendable (inout AlertEntry) -> Result<Bool, ResponseError>
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
        if let shared = sharedAlerts {
            if let visitor, !state.withLock({ s in admit(visitor, in: &s, at: now) }) { return tooMany() }
            let caller = visitor
            // Read, change and save on the database thread; a save another server beat is tried
            // again on what it saved.
            return .deferred {
                for _ in 0..<4 {
                    let found: AlertEntry?
                    switch self.storedAlert(id) {
                    case .failure(let error):
                        self.log("rocket serve: conversation store: \(error.message)")
                        return Self.storeUnavailable
                    case .success(let e): found = e
                    }
                    guard var e = found, caller == nil || e.visitor == caller else { return unknown }
                    let before = e.version
                    e.touched = now
                    switch body(&e) {
                    case .failure(let err): return err.response
                    case .success(false): return .json(200, .object([("alert", e.view(id: id))]))
                    case .success(true):
                        e.version += 1
                        do throws(ConversationArchive.Failure) {
                            guard
                                try shared.saveAlert(id, visitor: e.visitor, version: e.version, storedVersion: before, text: StoredAlert(e).text, touched: now)
                            else { continue }
                        } catch {
                            self.log("rocket serve: conversation store: \(error.message)")
                            return Self.storeUnavailable
                        }
                        let saved = e
                        self.state.withLock { s in s.alerts[id] = saved }
                        let v = e.view(id: id)
                        if let box = self.listener.withLock({ $0 }) { box.body(Change(id: id, version: e.version, view: v.serializedBytes(), events: [])) }
                        return .json(200, .object([("alert", v)]))
                    }
                }
                return .error(409, "stale-step", "the alert is being changed by others; try again")
            }
        }
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
        if let work = r.deferred {
            return .deferred {
                let read = work().resolved()
                guard read.status == 200, let frames = self.currentFrames(id) else { return read }
                return .eventStream(id, first: frames)
            }
        }
        guard r.status == 200, let frames = currentFrames(id) else { return r }
        return .eventStream(id, first: frames)
    }
}

/// An alert as a store several servers share keeps it (docs/SNAPSHOT_FORMAT.md, "Alerts in a
/// shared store"): its JSON, read back strictly.
struct StoredAlert: Codable, Equatable {
    struct Action: Codable, Equatable {
        var title: String
        var style: String
        var enabled: Bool
    }
    var visitor: String
    var address: String
    var title: String?
    var message: String?
    var actions: [Action]
    var sheet: Bool
    var selected: Int?
    var version: Int
    var touched: Double

    init(_ e: AlertEntry) {
        visitor = e.visitor
        address = e.address
        title = e.state.title
        message = e.state.message
        actions = e.state.actions.map { Action(title: $0.title, style: $0.style.rawValue, enabled: $0.isEnabled) }
        sheet = e.sheet
        selected = e.selected
        version = e.version
        touched = e.touched
    }

    /// The JSON text.
    var text: String { ((try? JSONCoding.encode(self))?.serialized(pretty: false)) ?? "{}" }

    /// Reads a stored alert; nil when the text is not one.
    init?(text: String) {
        guard let node = try? JSONReader.parse(Array(text.utf8)), let decoded = try? JSONCoding.decode(StoredAlert.self, from: node.plainValue) else {
            return nil
        }
        self = decoded
    }

    /// The entry it describes (nil: an action style this release does not know).
    var entry: AlertEntry? {
        var list: [WebAlertAction] = []
        for a in actions {
            guard let style = AlertActionStyle(rawValue: a.style) else { return nil }
            list.append(WebAlertAction(title: a.title, style: style, isEnabled: a.enabled))
        }
        return AlertEntry(
            visitor: visitor, address: address, state: AlertReactorState(title: title, message: message, actions: list), sheet: sheet, selected: selected,
            version: version, touched: touched)
    }
}
