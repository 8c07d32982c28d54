"""The ledger: append-only rows that say who paid whom, for what, by which ruling.

Four kinds of rows, all append-only (:class:`AppendOnlyModel`):

- :class:`LedgerEntry`: one payment. Either a settlement line of a hand (``kind=settlement``,
  unique per ``(hand, line_no)``), or an owner's correction (``kind=adjustment``, with a
  required reason). Amount = points × the match's base stake.
- :class:`HandResult`: one seat's net result of a settled hand (and whether it won the hand).
- :class:`MatchResult`: one seat's net result of a finished match (and 大赢家).
- :class:`Checkout`: 结账, the owner's mark that the club's balances up to a time are paid.

Each club's rows of all four kinds form one chain: row ``seq`` (1, 2, 3 … per club) is
signed together with ``prev_signature``, the signature of row ``seq - 1``, and the club's
:class:`LedgerHead` holds the last ``seq`` and signature, signed too. So
``manage.py ledger_verify`` finds a row changed, deleted, duplicated, reordered or slipped
in behind the ORM's back, not only an edited one. Signatures are HMACs under
``LEDGER_SIGNING_KEY`` (:mod:`apps.ledgers.signing`). The ORM refuses updates and deletes;
the admin is read-only; database triggers refuse ``UPDATE`` and ``DELETE`` on SQLite and
PostgreSQL alike (migrations 0002, 0009).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, date, datetime
from typing import Any, ClassVar, TypeVar

from django.conf import settings as django_settings
from django.contrib.auth import get_user_model
from django.db import DEFAULT_DB_ALIAS, connections, models, router, transaction
from django.db.models import F, Q

from .signing import head_message, ledger_sign, ledger_signed, row_message

USER_MODEL = django_settings.AUTH_USER_MODEL


class AppendOnlyError(Exception):
    """An attempt to change or delete a ledger row."""


class AppendOnlyQuerySet(models.QuerySet[Any]):
    """A queryset that can read and insert, never update or delete."""

    def bulk_create(self, objs: Any, *args: Any, **kwargs: Any) -> list[Any]:
        """Insert new rows, each chained and signed as :meth:`AppendOnlyModel.save` would."""
        objs = _new_rows(objs)
        for club_id in dict.fromkeys(obj.club_id for obj in objs):
            with ledger_chain(club_id) as chain:
                chain.link([obj for obj in objs if obj.club_id == club_id])
        return super().bulk_create(objs, *args, **kwargs)

    def update(self, **kwargs: Any) -> int:
        """Refused: ledger rows never change."""
        raise AppendOnlyError("账本记录不可修改")

    def delete(self) -> tuple[int, dict[str, int]]:
        """Refused: ledger rows are never deleted."""
        raise AppendOnlyError("账本记录不可删除")

    def bulk_update(self, objs: Any, fields: Any, batch_size: int | None = None) -> int:
        """Refused: ledger rows never change."""
        raise AppendOnlyError("账本记录不可修改")

    def update_or_create(self, *args: Any, **kwargs: Any) -> Any:
        """Refused: ledger rows never change."""
        raise AppendOnlyError("账本记录不可修改")


R = TypeVar("R", bound="AppendOnlyModel")


def _new_rows(objs: Any) -> list[Any]:
    """``objs`` as a list, refused if any is already stored (checked before the chain's
    head is locked, so a refusal leaves the transaction usable)."""
    rows = list(objs)
    if any(not obj._state.adding for obj in rows):
        raise AppendOnlyError("账本记录不可修改")
    return rows


class AppendOnlyModel(models.Model):
    """A row that is written once, chained and signed, and then only read."""

    club = models.ForeignKey(
        "clubs.Club", on_delete=models.PROTECT, related_name="+", verbose_name="亲友圈"
    )
    seq = models.PositiveBigIntegerField("链序号", editable=False)
    prev_signature = models.CharField("上一行签名", max_length=64, blank=True, editable=False)
    signature = models.CharField("签名", max_length=64, editable=False)
    created_at = models.DateTimeField("写入时间", auto_now_add=True)

    objects = AppendOnlyQuerySet.as_manager()
    SIGNED_FIELDS: ClassVar[tuple[str, ...]] = ()
    # The user fields of the row: each user they name has a :class:`LedgerIdentity` row
    # earlier in the club's chain.
    USER_FIELDS: ClassVar[tuple[str, ...]] = ()

    class Meta:
        abstract = True

    def save(self, *args: Any, **kwargs: Any) -> None:
        """Insert a new row (chained, signed); refuse to save one that already exists."""
        if not self._state.adding:
            raise AppendOnlyError("账本记录不可修改")
        kwargs["force_insert"] = True
        with ledger_chain(self.club_id) as chain:
            chain.link([self])
            super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
        """Refused: ledger rows are never deleted."""
        raise AppendOnlyError("账本记录不可删除")

    @classmethod
    def insert_signed(cls, objs: list[R], chain: Chain | None = None) -> list[R]:
        """Insert new rows of one club, chained and signed, in one statement; set their keys.

        What ``bulk_create`` does, without compiling a new query each time: a hand's
        end posts two such batches while the match's row is locked, and the ORM's query
        compilation was most of their cost. Values pass through each field's
        ``get_db_prep_save`` as the ORM's would; ``tests/ledgers/test_posting.py`` checks
        the rows against :meth:`bulk_create`'s. Both batches of a hand's end pass the
        same ``chain``, so the club's head is locked and written once.
        """
        if not _new_rows(objs):
            return objs
        if chain is None:
            with ledger_chain(objs[0].club_id) as own:
                return cls.insert_signed(objs, own)
        chain.link(objs)
        alias = router.db_for_write(cls) or DEFAULT_DB_ALIAS
        model, connection = cls, connections[alias]
        fields = [f for f in model._meta.concrete_fields if not f.primary_key]
        params: list[Any] = []
        for obj in objs:
            params.extend(f.get_db_prep_save(f.pre_save(obj, True), connection) for f in fields)
        pk = model._meta.pk
        assert pk is not None and pk.column is not None
        columns = [f.column for f in fields if f.column is not None]
        quote = connection.ops.quote_name
        row = "(" + ", ".join(["%s"] * len(fields)) + ")"
        sql = (
            f"INSERT INTO {quote(model._meta.db_table)} "
            f"({', '.join(map(quote, columns))}) VALUES "
            f"{', '.join([row] * len(objs))} RETURNING {quote(pk.column)}"
        )
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            keys = [key for (key,) in cursor.fetchall()]
        for obj, key in zip(objs, keys, strict=True):
            obj.pk = key
            obj._state.adding, obj._state.db = False, alias
        return objs

    def signed_content(self) -> str:
        """The canonical text the signature covers: the row's table, its place in the
        club's chain and its content."""
        values = {name: _plain(getattr(self, _attname(self, name))) for name in self.SIGNED_FIELDS}
        return row_message(self._meta.model_name or "", self.seq, self.prev_signature, values)

    def compute_signature(self) -> str:
        """HMAC-SHA256 of :meth:`signed_content` under the current ledger key."""
        return ledger_sign(self.signed_content())

    def signature_valid(self) -> bool:
        """Whether the stored signature matches the row's content and place, under the
        ledger key or one of its fallbacks."""
        return ledger_signed(self.signed_content(), self.signature)

    def user_ids(self) -> set[int]:
        """The users this row is about (its :attr:`USER_FIELDS` that are set)."""
        ids = (getattr(self, _attname(self, name)) for name in self.USER_FIELDS)
        return {user_id for user_id in ids if user_id is not None}


class LedgerHead(models.Model):
    """The end of a club's chain: the ``seq`` and signature of its last row, signed.

    Every write to the club's ledger locks this row (``select_for_update``), so rows get
    their ``seq`` one after another however many hands of the club end at once; the
    unique ``(club, seq)`` of each table backs this up. Without it a deleted last row
    would leave a chain that still verifies.
    """

    club = models.OneToOneField(
        "clubs.Club", on_delete=models.PROTECT, related_name="+", verbose_name="亲友圈"
    )
    seq = models.PositiveBigIntegerField("末行序号", default=0)
    last = models.CharField("末行签名", max_length=64, blank=True)
    signature = models.CharField("签名", max_length=64, blank=True)
    updated_at = models.DateTimeField("更新时间", auto_now=True)

    class Meta:
        verbose_name = "账本链头"
        verbose_name_plural = "账本链头"

    def __str__(self) -> str:
        return f"账本链头 第{self.seq}条"

    def signed_content(self) -> str:
        """What the head's signature covers."""
        return head_message(self.club_id, self.seq, self.last)

    def signature_valid(self) -> bool:
        """Whether the head is as the ledger last wrote it (under the key or a fallback)."""
        return ledger_signed(self.signed_content(), self.signature)


class Chain:
    """A club's chain, its head locked for the current transaction."""

    def __init__(self, head: LedgerHead) -> None:
        self.head = head
        self.identified: set[int] = set()  # users known to have a LedgerIdentity here

    def link(self, objs: list[R]) -> list[R]:
        """Give each new row the next ``seq`` and the signature before it, and sign it;
        first write the :class:`LedgerIdentity` of each user the rows name who has none
        in the club's chain yet."""
        self._identify(objs)
        head = self.head
        for obj in objs:
            if obj.club_id != head.club_id:
                raise ValueError("rows of another club's chain")
            head.seq += 1
            obj.seq, obj.prev_signature = head.seq, head.last
            obj.signature = obj.compute_signature()
            head.last = obj.signature
        return objs


    def _identify(self, objs: list[R]) -> None:
        user_ids = set().union(*(obj.user_ids() for obj in objs)) - self.identified
        if not user_ids:
            return
        club_id = self.head.club_id
        self.identified |= set(LedgerIdentity.objects.filter(
            club_id=club_id, user_id__in=user_ids
        ).values_list("user_id", flat=True))
        users = get_user_model().objects.filter(pk__in=user_ids - self.identified)
        new = [
            LedgerIdentity(club_id=club_id, user_id=user.pk, username=user.get_username(),
                           date_joined=user.date_joined)
            for user in users.order_by("pk")
        ]
        if new:
            self.identified |= {identity.user_id for identity in new}
            LedgerIdentity.insert_signed(new, self)


@contextmanager
def ledger_chain(club_id: int) -> Iterator[Chain]:
    """Lock the club's chain head (creating it for the club's first row), let the block
    link rows to it, then write the new head, all in the current transaction."""
    with transaction.atomic(savepoint=False):
        head = LedgerHead.objects.select_for_update().filter(club_id=club_id).first()
        if head is None:
            LedgerHead.objects.bulk_create([LedgerHead(club_id=club_id)], ignore_conflicts=True)
            head = LedgerHead.objects.select_for_update().get(club_id=club_id)
        yield Chain(head)
        head.signature = ledger_sign(head.signed_content())
        head.save(update_fields=["seq", "last", "signature", "updated_at"])


def _attname(obj: models.Model, name: str) -> str:
    field = obj._meta.get_field(name)
    return str(getattr(field, "attname", name))


def _plain(value: Any) -> Any:
    """A JSON-stable form of a field value (times as ISO text in UTC, dates as ISO text)."""
    if isinstance(value, datetime):
        return value.astimezone(UTC).isoformat()
    if isinstance(value, date):
        return value.isoformat()
    return value


class LedgerEntry(AppendOnlyModel):
    """One payment on a club's ledger: ``payer`` pays ``payee`` ``amount``."""

    class Kind(models.TextChoices):
        SETTLEMENT = "settlement", "结算"
        ADJUSTMENT = "adjustment", "调账"

    kind = models.CharField("类型", max_length=10, choices=Kind.choices)
    room = models.ForeignKey(
        "clubs.Room", on_delete=models.PROTECT, related_name="+", verbose_name="房间"
    )
    match = models.ForeignKey(
        "matches.Match", on_delete=models.PROTECT, related_name="+", verbose_name="对局"
    )
    hand = models.ForeignKey(
        "matches.Hand", on_delete=models.PROTECT, null=True, blank=True, related_name="+",
        verbose_name="牌局",
    )
    line_no = models.PositiveSmallIntegerField("行号", null=True, blank=True)
    variant = models.CharField("玩法", max_length=20)
    payer = models.ForeignKey(
        USER_MODEL, on_delete=models.PROTECT, related_name="+", verbose_name="付方"
    )
    payee = models.ForeignKey(
        USER_MODEL, on_delete=models.PROTECT, related_name="+", verbose_name="收方"
    )
    payer_seat = models.PositiveSmallIntegerField("付方座位")
    payee_seat = models.PositiveSmallIntegerField("收方座位")
    category = models.CharField("项目", max_length=60)
    points = models.IntegerField("分数")
    base_stake = models.PositiveIntegerField("底注")
    amount = models.IntegerField("金额", help_text="分数 × 底注")
    ruling = models.CharField("规则编号", max_length=20, blank=True)
    note = models.CharField("说明", max_length=200, blank=True)
    reason = models.CharField("调账原因", max_length=200, blank=True)
    corrects = models.ForeignKey(
        "self", on_delete=models.PROTECT, null=True, blank=True, related_name="corrections",
        verbose_name="更正的记录",
    )
    created_by = models.ForeignKey(
        USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+",
        verbose_name="操作人",
    )
    occurred_at = models.DateTimeField("时间", help_text="局终时间，调账为调账时间")

    SIGNED_FIELDS = (
        "kind", "club", "room", "match", "hand", "line_no", "variant", "payer", "payee",
        "payer_seat", "payee_seat", "category", "points", "base_stake", "amount", "ruling",
        "note", "reason", "corrects", "created_by", "occurred_at",
    )
    USER_FIELDS = ("payer", "payee", "created_by")

    class Meta:
        verbose_name = "账本记录"
        verbose_name_plural = "账本记录"
        ordering = ("occurred_at", "pk")
        indexes = (
            models.Index(fields=["club", "occurred_at"]),
            models.Index(fields=["match", "hand", "line_no"]),
        )
        constraints = (
            models.UniqueConstraint(
                fields=["hand", "line_no"], name="ledger_one_row_per_settlement_line"
            ),
            models.UniqueConstraint(fields=["club", "seq"], name="ledger_entry_chain_seq"),
            models.CheckConstraint(
                condition=Q(amount=F("points") * F("base_stake")),
                name="ledger_amount_is_points_x_stake",
            ),
            models.CheckConstraint(condition=Q(points__gt=0), name="ledger_points_positive"),
            models.CheckConstraint(
                condition=~Q(payer=F("payee")), name="ledger_payer_is_not_payee"
            ),
            models.CheckConstraint(
                condition=(
                    Q(kind="settlement", hand__isnull=False, line_no__isnull=False)
                    | (Q(kind="adjustment", line_no__isnull=True, created_by__isnull=False)
                       & ~Q(reason=""))
                ),
                name="ledger_kind_fields",
            ),
        )

    def __str__(self) -> str:
        what = "调账" if self.kind == self.Kind.ADJUSTMENT else self.category.removeprefix("牌型:")
        return f"{self.payer} 付 {self.payee} {what} {self.points}分"


class HandResult(AppendOnlyModel):
    """One seat's net result of a settled hand."""

    room = models.ForeignKey(
        "clubs.Room", on_delete=models.PROTECT, related_name="+", verbose_name="房间"
    )
    match = models.ForeignKey(
        "matches.Match", on_delete=models.PROTECT, related_name="+", verbose_name="对局"
    )
    hand = models.ForeignKey(
        "matches.Hand", on_delete=models.PROTECT, related_name="+", verbose_name="牌局"
    )
    variant = models.CharField("玩法", max_length=20)
    user = models.ForeignKey(
        USER_MODEL, on_delete=models.PROTECT, related_name="+", verbose_name="玩家"
    )
    seat = models.PositiveSmallIntegerField("座位")
    points = models.IntegerField("得分")
    amount = models.IntegerField("金额")
    won = models.BooleanField("胡牌")
    occurred_at = models.DateTimeField("时间")

    SIGNED_FIELDS = (
        "club", "room", "match", "hand", "variant", "user", "seat", "points", "amount", "won",
        "occurred_at",
    )
    USER_FIELDS = ("user",)

    class Meta:
        verbose_name = "每局成绩"
        verbose_name_plural = "每局成绩"
        ordering = ("occurred_at", "pk")
        indexes = (models.Index(fields=["club", "occurred_at"]),)
        constraints = (
            models.UniqueConstraint(fields=["hand", "seat"], name="ledger_one_result_per_seat"),
            models.UniqueConstraint(fields=["club", "seq"], name="ledger_hand_result_chain_seq"),
        )

    def __str__(self) -> str:
        return f"{self.user} 对局 #{self.match_id} 一局 {self.points:+d}分"


class MatchResult(AppendOnlyModel):
    """One seat's net result of a finished (or dissolved) match."""

    room = models.ForeignKey(
        "clubs.Room", on_delete=models.PROTECT, related_name="+", verbose_name="房间"
    )
    match = models.ForeignKey(
        "matches.Match", on_delete=models.PROTECT, related_name="+", verbose_name="对局"
    )
    variant = models.CharField("玩法", max_length=20)
    user = models.ForeignKey(
        USER_MODEL, on_delete=models.PROTECT, related_name="+", verbose_name="玩家"
    )
    seat = models.PositiveSmallIntegerField("座位")
    points = models.IntegerField("得分")
    amount = models.IntegerField("金额")
    hands_played = models.PositiveSmallIntegerField("局数")
    big_winner = models.BooleanField("大赢家")
    occurred_at = models.DateTimeField("时间")

    SIGNED_FIELDS = (
        "club", "room", "match", "variant", "user", "seat", "points", "amount", "hands_played",
        "big_winner", "occurred_at",
    )
    USER_FIELDS = ("user",)

    class Meta:
        verbose_name = "每场成绩"
        verbose_name_plural = "每场成绩"
        ordering = ("occurred_at", "pk")
        constraints = (
            models.UniqueConstraint(
                fields=["match", "seat"], name="ledger_one_match_result_per_seat"
            ),
            models.UniqueConstraint(fields=["club", "seq"], name="ledger_match_result_chain_seq"),
        )

    def __str__(self) -> str:
        return f"{self.user} 对局 #{self.match_id} 全场 {self.points:+d}分"


class Checkout(AppendOnlyModel):
    """结账: the owner marked a club's balances up to ``through`` as paid.

    A new row each time, never an edit. ``balances`` (user ID → amount, + is owed) and
    ``payments`` (``[{payer, payee, amount}]``) are what was shown and settled; every ledger
    row of the club up to ``through`` counts as settled, so the next 结账 starts after it.
    ``previous`` is the club's 结账 before this one: one successor per 结账 (and one first
    结账 per club), so a double submit or two owners at once cannot both write.
    """

    previous = models.OneToOneField(
        "self", on_delete=models.PROTECT, null=True, blank=True, related_name="next",
        verbose_name="上次结账",
    )
    period_start = models.DateField("起始日期")
    period_end = models.DateField("截止日期")
    since = models.DateTimeField("结算起点", null=True, blank=True, help_text="上次结账截止时间")
    through = models.DateTimeField("结算截止", help_text="此时间及以前的输赢已结清")
    balances = models.JSONField("各成员输赢", help_text="用户编号 → 金额，正数为应收")
    payments = models.JSONField("付款清单", help_text="[{payer, payee, amount}]")
    created_by = models.ForeignKey(
        USER_MODEL, on_delete=models.PROTECT, related_name="+", verbose_name="操作人"
    )

    SIGNED_FIELDS = (
        "club", "previous", "period_start", "period_end", "since", "through", "balances",
        "payments", "created_by",
    )
    USER_FIELDS = ("created_by",)

    class Meta:
        verbose_name = "结账记录"
        verbose_name_plural = "结账记录"
        ordering = ("through", "pk")
        constraints = (
            models.UniqueConstraint(
                fields=["club"], condition=Q(previous__isnull=True),
                name="ledger_one_first_checkout_per_club",
            ),
            models.UniqueConstraint(fields=["club", "seq"], name="ledger_checkout_chain_seq"),
        )

    def __str__(self) -> str:
        end = self.period_end.isoformat()
        return f"结账 {self.period_start.isoformat()}–{end}（{len(self.payments)}笔）"

    def user_ids(self) -> set[int]:
        """The operator, every member with a balance and every payer and payee."""
        ids = {int(user_id) for user_id in self.balances}
        ids |= {p[side] for p in self.payments for side in ("payer", "payee")}
        return super().user_ids() | ids


class LedgerIdentity(AppendOnlyModel):
    """Who a user ID stands for in a club's chain: written, chained and signed just before
    the first row that names the user (:meth:`Chain.link`), so later rows, which name the
    user by ID, are bound to this username and join date. Swapping two accounts' names
    (and passwords) behind their IDs would swap their balances; ``ledger_verify`` finds the
    account no longer matching its identity row.
    """

    user = models.ForeignKey(
        USER_MODEL, on_delete=models.PROTECT, related_name="+", verbose_name="玩家"
    )
    username = models.CharField("用户名", max_length=150)
    date_joined = models.DateTimeField("注册时间")

    SIGNED_FIELDS = ("club", "user", "username", "date_joined")

    class Meta:
        verbose_name = "账本身份"
        verbose_name_plural = "账本身份"
        ordering = ("seq",)
        constraints = (
            models.UniqueConstraint(fields=["club", "user"], name="ledger_one_identity_per_user"),
            models.UniqueConstraint(fields=["club", "seq"], name="ledger_identity_chain_seq"),
        )

    def __str__(self) -> str:
        return f"账本身份 {self.username}"


# The tables of a club's chain.
CHAINED: tuple[type[AppendOnlyModel], ...] = (
    LedgerEntry, HandResult, MatchResult, Checkout, LedgerIdentity
)


class AdjustmentReceipt(models.Model):
    """The once-only key of an owner's 调账 form: submitting the same form twice finds the
    entry the first submit wrote instead of writing another."""

    club = models.ForeignKey(
        "clubs.Club", on_delete=models.PROTECT, related_name="+", verbose_name="亲友圈"
    )
    key = models.CharField("表单编号", max_length=64)
    entry = models.OneToOneField(
        LedgerEntry, on_delete=models.PROTECT, related_name="receipt", verbose_name="调账记录"
    )
    created_at = models.DateTimeField("写入时间", auto_now_add=True)

    class Meta:
        verbose_name = "调账回执"
        verbose_name_plural = "调账回执"
        constraints = (
            models.UniqueConstraint(fields=["club", "key"], name="ledger_one_entry_per_form"),
        )

    def __str__(self) -> str:
        return f"调账回执 {self.key[:8]}"
