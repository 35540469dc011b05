import AFNetworking
import Testing
@testable import af

@Suite struct RequestItemTests {
    @Test(arguments: [
        ("page==2", RequestItem.query(name: "page", value: "2")),
        ("q==a=b", .query(name: "q", value: "a=b")),
        ("name=Ana", .field(name: "name", value: "Ana")),
        ("url=http://x/y?z==1", .field(name: "url", value: "http://x/y?z==1")),
        ("tags:=[\"a\",1]", .jsonField(name: "tags", value: ["a", 1])),
        ("X-Token:abc", .header(name: "X-Token", value: "abc")),
        ("Accept:", .header(name: "Accept", value: "")),
        ("avatar@/tmp/a.png", .file(name: "avatar", path: "/tmp/a.png")),
        ("mail=a@b.c", .field(name: "mail", value: "a@b.c")),
    ])
    func parsesEachNotation(text: String, expected: RequestItem) throws {
        #expect(try RequestItem(parsing: text) == expected)
    }

    @Test func rejectsItemsWithoutSeparatorOrName() {
        #expect(throws: RequestItemError.self) { try RequestItem(parsing: "plain") }
        #expect(throws: RequestItemError(item: "=x", reason: "the name before '=' is empty")) { try RequestItem(parsing: "=x") }
        #expect(throws: RequestItemError(item: "n:={bad", reason: "the value after ':=' is not JSON")) {
            try RequestItem(parsing: "n:={bad")
        }
    }

    @Test func groupsItemsIntoARequest() throws {
        let items = RequestItems(try ["a==1", "b=x", "c:=true", "H:v", "f@/p", "a==2"].map(RequestItem.init(parsing:)))
        #expect(items.query.map { "\($0.0)=\($0.1)" } == ["a=1", "a=2"])
        #expect(items.bodyParameters == ["b": "x", "c": true])
        #expect(items.headers.map { "\($0.0):\($0.1)" } == ["H:v"])
        #expect(items.files.map(\.path) == ["/p"])
        #expect(RequestItems([]).bodyParameters == nil)
    }
}
