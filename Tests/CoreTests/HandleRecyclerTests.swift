import CCurl
import CCurlShim
import Testing
@testable import AFCore

@Suite("Engine: ended handles renewed by callers")
struct HandleRecyclerTests {
    private let plain = HandleState.plain(PlainTransferOptions(
        idleTimeoutMilliseconds: 1_000, resourceTimeoutMilliseconds: nil, followsRedirectsManually: false,
        maximumRedirects: 16, httpVersion: .automatic, tls: nil, unixSocketPath: nil, proxy: nil, streamWeight: 16,
        decodesContent: true, waitsForMultiplexing: false))

    private func newHandle(marked mark: Int) throws -> UnsafeMutableRawPointer {
        let handle = try #require(curl_easy_init())
        afc_easy_setopt_pointer(handle, CURLOPT_PRIVATE, UnsafeMutableRawPointer(bitPattern: mark))
        return handle
    }

    private func mark(of handle: UnsafeMutableRawPointer) -> Int {
        var pointer: UnsafeMutableRawPointer?
        afc_easy_getinfo_pointer(handle, CURLINFO_PRIVATE, &pointer)
        return Int(bitPattern: pointer)
    }

    @Test func aPlainHandleComesBackAsACopyWithItsOptionsOnceACallerRenewedIt() throws {
        let recycler = HandleRecycler()
        let ended = try newHandle(marked: 0x5150)
        #expect(recycler.handOver(.init(handle: ended, state: plain)))
        var idle: [HandleRecycler.PooledHandle] = []
        recycler.takeRenewed(into: &idle)
        #expect(idle.isEmpty)  // nothing renewed yet
        recycler.renewOne()
        recycler.takeRenewed(into: &idle)
        #expect(idle.count == 1)
        let renewed = try #require(idle.first)
        #expect(renewed.handle != ended)
        #expect(renewed.state == plain)
        #expect(mark(of: renewed.handle) == 0x5150)
        curl_easy_cleanup(renewed.handle)
        idle.removeAll()
        recycler.renewOne()  // nothing waits: nothing happens
        recycler.takeRenewed(into: &idle)
        #expect(idle.isEmpty)
    }

    @Test func aDirtyHandleIsFreedNotRenewed() throws {
        let recycler = HandleRecycler()
        #expect(recycler.handOver(.init(handle: try newHandle(marked: 1), state: .dirty)))
        #expect(recycler.handOver(.init(handle: try newHandle(marked: 2), state: .fresh)))
        recycler.renewOne()
        recycler.renewOne()
        var idle: [HandleRecycler.PooledHandle] = []
        recycler.takeRenewed(into: &idle)
        #expect(idle.isEmpty)
    }

    @Test func atCapacityTheEngineKeepsTheHandleAndSurplusCopiesAreFreed() throws {
        let recycler = HandleRecycler()
        for index in 0..<HandleRecycler.capacity {
            #expect(recycler.handOver(.init(handle: try newHandle(marked: index + 1), state: plain)))
        }
        let surplus = try newHandle(marked: 999)
        #expect(!recycler.handOver(.init(handle: surplus, state: plain)))
        curl_easy_cleanup(surplus)
        for _ in 0..<HandleRecycler.capacity { recycler.renewOne() }
        var idle: [HandleRecycler.PooledHandle] = []
        recycler.takeRenewed(into: &idle)
        #expect(idle.map { mark(of: $0.handle) }.sorted() == Array(1...HandleRecycler.capacity))
        // The renewed list is full again after this: a copy past it is freed, not kept.
        for pooled in idle { #expect(recycler.handOver(pooled)) }
        for _ in 0..<HandleRecycler.capacity { recycler.renewOne() }
        #expect(recycler.handOver(.init(handle: try newHandle(marked: 1_000), state: plain)))
        recycler.renewOne()
        var again: [HandleRecycler.PooledHandle] = []
        recycler.takeRenewed(into: &again)
        #expect(again.count == HandleRecycler.capacity)
        for pooled in again { curl_easy_cleanup(pooled.handle) }
    }
}
