"""The elevated area: shared facts (`/admin`), the audit trail (`/admin/audit`) and their JSON endpoints.

Visibly apart from the personal page, with its own layout. Who may do what is decided in
`store.admin` (and the gate behind it); these handlers parse, call it, and put its answer into words.
"""
