import Foundation
import RocketAlert
import RocketCore

/// A rocket on a manual clock that records every typed event with the time it happened.
final class Harness {
    let clock = ManualClock()
    let rocket: Rocket
    var log: [(time: Double, event: RocketEvent)] = []

    init(root: any RocketBlock, timing: RocketTiming = .original, echo: Bool = false, answers: [String: String] = [:]) {
        rocket = Rocket(
            author: RocketAuthor(image: .file("avatar.png")), block: root, clock: clock,
            options: ConversationOptions(timing: timing, echoReplies: echo, initialAnswers: answers))
        rocket.onEvent = { [unowned self] event in self.log.append((self.clock.now, event)) }
    }

    /// Advances the clock in small steps, ticking the rocket, as a host loop would.
    func run(for seconds: Double, step: Double = 0.05) {
        let target = clock.now + seconds
        while clock.now < target {
            clock.set(min(target, clock.now + step))
            rocket.tick()
        }
    }

    var added: [String] {
        log.compactMap {
            if case .blockAdded(_, let b) = $0.event { return b.text }; return nil
        }
    }

    var dismissals: [RocketDismissReason] {
        log.compactMap {
            if case .dismissed(let r, _, _) = $0.event { return r }; return nil
        }
    }

    func time(ofAdded text: String) -> Double? {
        log.first {
            if case .blockAdded(_, let b) = $0.event { return b.text == text }; return false
        }?.time
    }
}

/// Collects NotificationCenter posts of the two public names from a private center.
/// Posting is synchronous on the posting thread, and each test uses its own center.
final class NotificationRecorder: @unchecked Sendable {
    let center = NotificationCenter()
    var posts: [(name: Notification.Name, object: AnyObject?, userInfo: [AnyHashable: Any])] = []
    private var tokens: [any NSObjectProtocol] = []

    init() {
        for name in [Notification.Name.rocketBlockAddedEvent, .rocketDismissEvent] {
            tokens.append(
                center.addObserver(forName: name, object: nil, queue: nil) { [unowned self] note in
                    self.posts.append((note.name, note.object as AnyObject?, note.userInfo ?? [:]))
                })
        }
    }

    deinit { tokens.forEach(center.removeObserver) }
}

/// A value shared with a `@Sendable` observer closure.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var _value: Value
    init(_ value: Value) { _value = value }
    var value: Value { lock.withLock { _value } }
    func mutate(_ body: (inout Value) -> Void) { lock.withLock { body(&_value) } }
}
