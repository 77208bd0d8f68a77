import Foundation
import RocketConversation

/// Turns seed blocks (a graph of classes) into ``RocketGraph`` nodes, without recursion, and
/// remembers which class each node came from so a ``Rocket`` can run its closures and post it in
/// notifications. Compiling again adds only blocks not seen before (a handler's new block).
final class SeedCompiler {
    private var ids: [ObjectIdentifier: RocketNodeID] = [:]
    private var blocks: [Int: any RocketBlock] = [:]

    /// Forgets every block (before a fresh compile).
    func reset() {
        ids.removeAll()
        blocks.removeAll()
    }

    /// The class block a node came from.
    func block(for id: RocketNodeID) -> (any RocketBlock)? { blocks[id.rawValue] }

    /// Adds `root` and every block reachable from it that is not compiled yet; returns root's id.
    func compile(_ root: (any RocketBlock)?, into graph: inout RocketGraph) -> RocketNodeID? {
        guard let root else { return nil }
        if let known = ids[ObjectIdentifier(root)] { return known }
        // Number the new blocks first (depth-first, iteratively), then build their nodes.
        var order: [any RocketBlock] = []
        var stack: [any RocketBlock] = [root]
        var next = graph.nodes.count
        while let b = stack.popLast() {
            let key = ObjectIdentifier(b)
            guard ids[key] == nil else { continue }
            ids[key] = RocketNodeID(next)
            next += 1
            order.append(b)
            for s in SeedCompiler.successors(of: b).reversed() { if let s { stack.append(s) } }
        }
        graph.reserveCapacity(order.count)
        for b in order {
            let id = graph.add(SeedCompiler.node(for: b) { [ids] in $0.flatMap { ids[ObjectIdentifier($0)] } })
            blocks[id.rawValue] = b
        }
        return ids[ObjectIdentifier(root)]
    }

    /// The blocks a seed block can lead to.
    static func successors(of b: any RocketBlock) -> [(any RocketBlock)?] {
        switch b {
        case let t as TextRocketBlock: return [t.next]
        case let btn as ButtonRocketBlock: return [btn.tapHandler?.next]
        case let d as DoubleButtonRocketBlock: return [d.left.tapHandler?.next, d.right.tapHandler?.next]
        case let i as TextInputRocketBlock: return i.branches.map(\.next) + [i.next]
        default: return []
        }
    }

    /// The node for one block; `id` names its successors.
    static func node(for b: any RocketBlock, id: ((any RocketBlock)?) -> RocketNodeID?) -> RocketNode {
        func button(_ btn: ButtonRocketBlock) -> RocketButtonNode {
            RocketButtonNode(
                title: btn.title, font: btn.font ?? .button, next: id(btn.tapHandler?.next),
                actionName: btn.tapHandler?.actionName, hasHostAction: btn.tapHandler?.action != nil)
        }
        switch b {
        case let img as ImageRocketBlock:
            return RocketNode(
                id: img.id,
                content: .image(
                    RocketImageNode(
                        image: img.image, text: img.text, next: id(img.next), showNextAfter: img.showNextAfter, font: img.font ?? .text,
                        imageStyle: img.imageStyle, paddingLeft: img.paddingLeft, paddingRight: img.paddingRight)))
        case let t as TextRocketBlock:
            return RocketNode(
                id: t.id,
                content: .text(
                    RocketTextNode(
                        text: t.text, next: id(t.next), showNextAfter: t.showNextAfter,
                        font: t.font ?? .text)))
        case let btn as ButtonRocketBlock:
            return RocketNode(id: btn.id, content: .button(button(btn)))
        case let d as DoubleButtonRocketBlock:
            return RocketNode(id: d.id, content: .doubleButton(left: button(d.left), right: button(d.right)))
        case let i as TextInputRocketBlock:
            return RocketNode(
                id: i.id,
                content: .textInput(
                    RocketInputNode(
                        text: i.text, buttonTitle: i.buttonTitle, font: i.font ?? .text, buttonStyle: i.buttonStyle ?? .lightButton,
                        isSecret: i.isSecret, placeholder: i.placeholder, validation: i.validation,
                        branches: i.branches.map { RocketNodeBranch(when: $0.condition, next: id($0.next)) },
                        next: id(i.next), decidedByHost: i.handler != nil)))
        default:
            // A block type of the app's own: shown by its kind with no text, leading nowhere.
            return RocketNode(id: b.id, content: .text(RocketTextNode(text: "")))
        }
    }
}

/// Something that can hand over the blocks it points to, so a long chain is released one link
/// at a time instead of by recursion (see ``releaseChain(_:)``).
protocol ChainLink: AnyObject {
    /// Clears and returns the references to following blocks.
    func detachSuccessors() -> [any RocketBlock]
}

/// The blocks waiting to be released on this thread, and whether a release loop runs.
private final class ReleaseQueue {
    var draining = false
    var pending: [AnyObject] = []
}

/// One ``ReleaseQueue`` per thread, freed with the thread.
private let releaseQueueKey: pthread_key_t = {
    var key = pthread_key_t()
    pthread_key_create(&key) { pointer in
        if let pointer { Unmanaged<ReleaseQueue>.fromOpaque(pointer).release() }
    }
    return key
}()

private func currentReleaseQueue() -> ReleaseQueue {
    if let pointer = pthread_getspecific(releaseQueueKey) {
        return Unmanaged<ReleaseQueue>.fromOpaque(pointer).takeUnretainedValue()
    }
    let queue = ReleaseQueue()
    pthread_setspecific(releaseQueueKey, Unmanaged.passRetained(queue).toOpaque())
    return queue
}

/// Releases the successors a dying block detached, without recursion: the outermost call
/// drops them one at a time, and a deinit that runs meanwhile only queues its own successors,
/// so no deinit is ever more than one block deep, however long the chain and whatever else
/// holds parts of it.
func releaseChain(_ successors: inout [any RocketBlock]) {
    guard !successors.isEmpty else { return }
    let queue = currentReleaseQueue()
    while let s = successors.popLast() { queue.pending.append(s as AnyObject) }
    guard !queue.draining else { return }
    queue.draining = true
    while !queue.pending.isEmpty {
        queue.pending.removeLast()
    }
    queue.draining = false
}
